#pragma once
// Fitting the step-time defaults once over the fidelity set: the factors every GPU shares
// (timing_factors) chosen so that the simulated figures of all the points, together, come closest
// to the published ones. What each GPU does differently stays in its datasheet and benchmark
// figures; a coefficient that only one point asks for cannot move much against the rest.
#include <cstddef>
#include <functional>
#include <span>

#include "sweep/fidelity.hpp"

namespace kvscope {

struct fidelity_fit {
  timing_factors factors;
  double cost = 0;  // mean over points of the mean squared log(predicted / measured)
  std::size_t evaluations = 0;
};

// The cost of `factors` on `points`: for each point the mean of log(predicted / measured)^2 over
// the figures it publishes (request throughput left out: output throughput says the same), a
// figure with nothing predicted (every request rejected) counting log(10)^2; then the mean over
// points, so a point that publishes many figures weighs as much as one that publishes few.
double fidelity_cost(std::span<const fidelity_point* const> points, const timing_factors& factors);

// Nelder–Mead over the logits of the three efficiencies and the logs of the three host overheads
// of each vLLM engine (V1, V0), and the logit of the sustained share of each GPU other than the
// reference (sustained_share_reference_gpu) that runs at least three of the points,
// from the built-in defaults, for at most `max_evaluations` costs. `progress(evaluations, cost)`
// is called after each improvement of the best cost. Throws what run_to_end throws.
fidelity_fit fit_timing_factors(std::span<const fidelity_point* const> points, std::size_t max_evaluations,
                                const std::function<void(std::size_t, double)>& progress = {});

}  // namespace kvscope
