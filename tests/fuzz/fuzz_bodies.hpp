#pragma once
// The fuzz targets' bodies, shared by the libFuzzer binaries (run_fuzz.sh, clang) and the
// corpus replay test of the ordinary build. Each returns normally on any input; a crash, a
// sanitizer report, or an exception other than load_error is a bug (policy: any exception).
#include <cstddef>
#include <cstdint>

namespace kvscope::fuzz {

enum class target { azure, burstgpt, vidur, mooncake, native, detect, gen_spec, policy };
// Documents of the other readers (fuzz_file_bodies.cpp, which needs all of core): sessions,
// config.json, vLLM bench results, tour scripts, per-request CSVs and sweep CSVs (GUI views),
// GPU files and calibrations. A model, GPU or calibration that parses is carried through every
// size and time computed from it (the KV shape, frames, the pool, the auto budget, step times).
enum class document { session, model_config, vllm_bench, tour, requests_csv, sweep_csv, gpu, calibration };

// Runs one input through `t`; aborts when an invariant is broken.
void run_one(target t, const std::uint8_t* data, std::size_t size);

// Runs one input through the reader of `d`; aborts when an invariant is broken.
void run_document(document d, const std::uint8_t* data, std::size_t size);

namespace detail {
// Aborts with `what` on stderr: an invariant of a target is broken.
[[noreturn]] void broken(const char* what);
}  // namespace detail

}  // namespace kvscope::fuzz
