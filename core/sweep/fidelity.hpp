#pragma once
// Checking kvscope against real servers: each usable point of the fidelity set
// (io/fidelity_points.hpp) simulated as its benchmark ran, its figures beside the published ones
// with the signed relative error, and the median |error| per figure over groups of points.
#include <array>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine_options.hpp"
#include "io/fidelity_points.hpp"
#include "model/calibration.hpp"

namespace kvscope {

struct fidelity_check {
  const fidelity_point* point = nullptr;
  fidelity_values predicted{};  // NaN where the point publishes nothing to compare
  fidelity_values error{};      // (predicted - measured) / measured; NaN where not compared
  std::uint64_t finished = 0, rejected = 0;
  std::string first_rejection;  // the first rejected request's reason ("" when none was)
  bool calibrated = false;      // the calibration was for this point's GPU and applied
};

// Step-time factors set on every point alike (0 = the GPU's own): what `check-fidelity --fit`
// varies to fit the defaults once over the whole set.
struct timing_factors {
  double compute_efficiency = 0;
  double memory_efficiency = 0;
  double kv_memory_efficiency = 0;
  double step_overhead_s = 0;  // the V1 engine's host overheads
  double layer_overhead_s = 0;
  double sequence_overhead_s = 0;
  double v0_step_overhead_s = 0;  // the V0 engine's (the points of vLLM before 0.8)
  double v0_layer_overhead_s = 0;
  double v0_sequence_overhead_s = 0;
  // The sustained share of each GPU named here (kvscope's GPU name); the others keep their own.
  std::vector<std::pair<std::string, double>> sustained_share_by_gpu;
};

// The options the point's server ran with: accounting payload, budget auto, every block at fp16
// (the fp16_only policy), the point's model, GPU, tp and limits; then `factors`; then a
// calibration fitted on the point's GPU sets the factors it fitted.
engine_options fidelity_options(const fidelity_point& p, const std::optional<calibration>& c,
                                const timing_factors& factors = {});

// Simulates one usable point (its unusable_reason is empty) through the run service.
// Throws what run_to_end throws.
fidelity_check check_fidelity_point(const fidelity_point& p, const std::optional<calibration>& c,
                                    const timing_factors& factors = {});

struct fidelity_median {
  std::string kind;   // "all", "gpu" or "source"
  std::string group;  // "all", the GPU or the source
  fidelity_values median_abs_error{};  // NaN where no point of the group compares the figure
  fidelity_values median_error{};      // signed: the bias (negative: kvscope predicts less)
  std::array<std::size_t, fidelity_figure_count> points{};  // points compared per figure
};

// Median |error| per figure over all checks, then per GPU, per source and per tensor parallelism
// (groups named "tp 2"), each kind's groups in order of first appearance.
std::vector<fidelity_median> fidelity_medians(std::span<const fidelity_check> checks);

}  // namespace kvscope
