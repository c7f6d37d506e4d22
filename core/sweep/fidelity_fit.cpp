#include "sweep/fidelity_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "model/gpu_spec.hpp"
#include "util/nelder_mead.hpp"

namespace kvscope {
namespace {

// Parameters 0-7 are the shared factors; one more per GPU whose sustained share is fitted.
constexpr std::size_t shared_parameters = 8;

timing_factors factors_at(const std::vector<double>& x, std::span<const std::string> share_gpus) {
  timing_factors f;
  f.compute_efficiency = std::clamp(sigmoid(x[0]), 0.01, 1.0);
  f.memory_efficiency = std::clamp(sigmoid(x[1]), 0.01, 1.0);
  f.kv_memory_efficiency = std::clamp(sigmoid(x[2]), 0.01, 1.0);
  f.step_overhead_s = std::clamp(std::exp(x[3]), 1e-7, 1.0);
  f.layer_overhead_s = std::clamp(std::exp(x[4]), 1e-9, 0.01);
  f.sequence_overhead_s = std::clamp(std::exp(x[5]), 1e-9, 0.01);
  // The per-layer cost is the GPU's (kernels between the matmuls and attention), the same
  // whichever engine schedules the step; the step and sequence costs are the host's.
  f.v0_step_overhead_s = std::clamp(std::exp(x[6]), 1e-7, 1.0);
  f.v0_layer_overhead_s = f.layer_overhead_s;
  f.v0_sequence_overhead_s = std::clamp(std::exp(x[7]), 1e-9, 0.01);
  for (std::size_t i = 0; i < share_gpus.size(); ++i) {
    f.sustained_share_by_gpu.emplace_back(share_gpus[i], std::clamp(sigmoid(x[shared_parameters + i]), 0.05, 1.0));
  }
  return f;
}

// The GPUs of `points` other than the reference that run at least `min_points` of them: each
// gets its own sustained share (with fewer points it would follow their noise). None without the
// reference's points: the shares are relative to it, and alone they and compute_efficiency are
// one thing.
std::vector<std::string> share_gpus_of(std::span<const fidelity_point* const> points) {
  constexpr std::size_t min_points = 3;
  std::vector<std::string> gpus;
  const bool reference_present = std::any_of(points.begin(), points.end(),
                                             [](const auto* p) { return p->gpu == sustained_share_reference_gpu; });
  if (!reference_present) return gpus;
  for (const auto* p : points) {
    if (p->gpu == sustained_share_reference_gpu) continue;
    const auto n = std::count_if(points.begin(), points.end(), [&](const auto* q) { return q->gpu == p->gpu; });
    if (n >= static_cast<std::ptrdiff_t>(min_points) && std::find(gpus.begin(), gpus.end(), p->gpu) == gpus.end()) {
      gpus.push_back(p->gpu);
    }
  }
  return gpus;
}

}  // namespace

double fidelity_cost(std::span<const fidelity_point* const> points, const timing_factors& factors) {
  const double missing = std::log(10.0) * std::log(10.0);
  double total = 0;
  for (const auto* p : points) {
    const auto check = check_fidelity_point(*p, std::nullopt, factors);
    double sum = 0;
    int figures = 0;
    for (std::size_t i = 0; i < fidelity_figure_count; ++i) {
      if (i == static_cast<std::size_t>(fidelity_figure::request_throughput)) continue;
      const double measured = p->measured[i];
      if (!std::isfinite(measured) || measured <= 0) continue;
      const double predicted = check.predicted[i];
      const double r = predicted > 0 && std::isfinite(predicted) ? std::log(predicted / measured) : 0;
      sum += predicted > 0 && std::isfinite(predicted) ? r * r : missing;
      ++figures;
    }
    if (figures) total += sum / figures;
  }
  return points.empty() ? 0 : total / static_cast<double>(points.size());
}

fidelity_fit fit_timing_factors(std::span<const fidelity_point* const> points, std::size_t max_evaluations,
                                const std::function<void(std::size_t, double)>& progress) {
  const auto share_gpus = share_gpus_of(points);
  std::vector<double> start = {logit(default_compute_efficiency), logit(default_memory_efficiency),
                                     logit(default_kv_memory_efficiency),
                                     std::log(std::max(default_step_overhead_s, 1e-4)),
                                     std::log(std::max(default_layer_overhead_s, 1e-5)),
                                     std::log(std::max(default_sequence_overhead_s, 1e-5)),
                                     std::log(std::max(default_v0_step_overhead_s, 1e-4)),
                                     std::log(std::max(default_v0_sequence_overhead_s, 1e-5))};
  std::vector<double> steps = {0.5, 0.5, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0};
  for (const auto& gpu : share_gpus) {
    const auto spec = builtin_gpu(gpu);
    start.push_back(logit(std::min(spec ? spec->sustained_share : 1.0, 0.9)));
    steps.push_back(0.5);
  }
  double best = std::numeric_limits<double>::infinity();
  std::size_t evaluations = 0;
  const auto cost = [&](const std::vector<double>& x) {
    const double c = fidelity_cost(points, factors_at(x, share_gpus));
    ++evaluations;
    if (c < best) {
      best = c;
      if (progress) progress(evaluations, c);
    }
    return c;
  };
  const auto found = nelder_mead(cost, start, steps, max_evaluations, 1e-3);
  return {factors_at(found.best, share_gpus), found.cost, found.evaluations};
}

}  // namespace kvscope
