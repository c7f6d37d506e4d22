#pragma once
// Fitting the roofline timing to measured benchmarks: the GPU's compute and memory efficiency,
// its per-layer overhead and its per-sequence overhead are chosen so that the simulated median TTFT and TPOT of each measured
// benchmark (replayed with its own lengths and pacing) match the measured ones, in the least-
// squares sense on log ratios. Nelder–Mead over the three parameters; each evaluation runs
// every benchmark through the run service.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine_options.hpp"
#include "load/vllm_bench.hpp"
#include "model/calibration.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct calibration_options {
  std::uint32_t max_evaluations = 600;
  std::uint32_t max_requests = 256;  // per benchmark replayed (the first ones), to keep a fit fast
};

// Median TTFT and TPOT (ms) a measurement reports, from its summary fields or its per-request
// lists; the error names the missing field.
expected<std::pair<double, double>, std::string> measured_medians_ms(const vllm_bench_result& m);

// The fit. `base` gives the model, GPU (required), budget and scheduler; its efficiency
// overrides are the starting point when set.
expected<calibration, std::string> fit_calibration(const engine_options& base,
                                                   const std::vector<vllm_bench_result>& measured,
                                                   const calibration_options& options = {});

// Simulated median TTFT and TPOT (ms) of replaying `m` with `options`.
std::pair<double, double> simulated_medians_ms(const engine_options& options, const vllm_bench_result& m,
                                               std::uint32_t max_requests);

}  // namespace kvscope
