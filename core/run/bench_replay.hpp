#pragma once
// A `vllm bench serve` result replayed with its own lengths and pacing, and judged as vLLM's
// benchmark client judged the real server (benchmark_serving.py, calculate_metrics), so that a
// measured figure and a simulated one count the same requests the same way:
//   TTFT  every successful request; one whose output the file records as 0 tokens counts 0 (the
//         real client never saw a token and kept its initial 0.0; kvscope replays it as 1 token)
//   TPOT  (latency - TTFT) / (output_len - 1), only where the file's output_len is 2 or more
//   E2EL  every successful request
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/engine_options.hpp"
#include "load/vllm_bench.hpp"
#include "outcome/exact_stats.hpp"
#include "run/run_summary.hpp"

namespace kvscope {

struct bench_replay {
  run_summary summary;
  latency_stats ttft_s{}, tpot_s{}, e2e_s{};  // by the rules above
  std::string first_rejection;                 // the first rejected request's reason, "" if none
};

// Replays the first `max_requests` requests of `m` with `options`.
bench_replay replay_vllm_bench(const engine_options& options, const vllm_bench_result& m,
                               std::uint32_t max_requests = std::numeric_limits<std::uint32_t>::max());

}  // namespace kvscope
