#pragma once
// Fitting the roofline timing to measured benchmarks: the parameters the measurements determine
// (of compute efficiency, per-layer overhead, per-sequence overhead and memory efficiency) are
// chosen so that the simulated median TTFT and TPOT of each measured benchmark (replayed with its
// own lengths and pacing, judged as vLLM's client judged it: run/bench_replay.hpp) match the
// measured ones, in the least-squares sense on log ratios. Nelder–Mead over those parameters;
// each evaluation runs every benchmark through the run service. The rest are held at the GPU's
// defaults, and each measurement is predicted once more by a fit without it (leave-one-out).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "engine/engine_options.hpp"
#include "load/vllm_bench.hpp"
#include "model/calibration.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct calibration_options {
  std::uint32_t max_evaluations = 600;
  // Per benchmark replayed (the first ones), to keep a fit fast. All by default: the first 256 of
  // 320 requests sent at once queue less than the 320 did, a different measurement.
  std::uint32_t max_requests = std::numeric_limits<std::uint32_t>::max();
  bool leave_one_out = true;         // refit without each measurement (two or more)
};

// Median TTFT and TPOT (ms) a measurement reports, from its summary fields or its per-request
// lists; the error names the missing field.
expected<std::pair<double, double>, std::string> measured_medians_ms(const vllm_bench_result& m);

// Independent figures of a set of measurements: two medians (TTFT, TPOT) per distinct load
// (concurrency, rate and lengths); the same load measured twice says nothing new.
std::uint32_t independent_figures(const std::vector<vllm_bench_result>& measured);

// The fit. `base` gives the model, GPU (required), budget and scheduler; its efficiency
// overrides are the starting point when set.
expected<calibration, std::string> fit_calibration(const engine_options& base,
                                                   const std::vector<vllm_bench_result>& measured,
                                                   const calibration_options& options = {});

// Sets the factors `c` fitted (and held) on `options`, and a sustained share of 1: measured on
// its GPU, the calibration's compute efficiency already holds what the GPU sustains.
void apply_calibration(engine_options& options, const calibration& c);

// Simulated median TTFT and TPOT (ms) of replaying `m` with `options`.
std::pair<double, double> simulated_medians_ms(const engine_options& options, const vllm_bench_result& m,
                                               std::uint32_t max_requests);

}  // namespace kvscope
