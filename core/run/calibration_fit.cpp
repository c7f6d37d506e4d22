#include "run/calibration_fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "model/builtin_models.hpp"
#include "run/run_service.hpp"
#include "util/nelder_mead.hpp"
#include "util/number_text.hpp"

namespace kvscope {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The parameters live on an unbounded space: logits of the efficiencies, logs of the overheads.

engine_options with_params(engine_options o, const std::vector<double>& x) {
  o.compute_efficiency = std::clamp(sigmoid(x[0]), 0.01, 1.0);
  o.memory_efficiency = std::clamp(sigmoid(x[1]), 0.01, 1.0);
  o.layer_overhead_s = std::clamp(std::exp(x[2]), 1e-9, 0.01);
  o.sequence_overhead_s = std::clamp(std::exp(x[3]), 1e-9, 0.01);
  return o;
}

}  // namespace

expected<std::pair<double, double>, std::string> measured_medians_ms(const vllm_bench_result& m) {
  double ttft = NAN, tpot = NAN;
  // A median that is there but not positive is wrong, not missing: say so rather than "missing".
  for (auto [key, out] : {std::pair{"median_ttft_ms", &ttft}, std::pair{"median_tpot_ms", &tpot}}) {
    const auto it = m.summary_ms.find(key);
    if (it == m.summary_ms.end()) continue;
    if (!(it->second > 0)) {
      std::string got;
      append_shortest(got, it->second);
      return unexpected{m.source + ": field '" + key + "': must be more than 0 ms, got " + got};
    }
    *out = it->second;
  }
  if (!std::isfinite(ttft) && !m.ttfts_s.empty()) ttft = 1e3 * median(m.ttfts_s);
  if (!std::isfinite(tpot) && !m.itls_s.empty()) {
    std::vector<double> per_request;
    for (const auto& gaps : m.itls_s) {
      if (gaps.empty()) continue;
      double sum = 0;
      for (double g : gaps) sum += g;
      per_request.push_back(sum / static_cast<double>(gaps.size()));
    }
    tpot = 1e3 * median(per_request);
  }
  if (!(ttft > 0)) return unexpected{m.source + ": field 'median_ttft_ms': missing (and no ttfts to compute it from)"};
  if (!(tpot > 0)) return unexpected{m.source + ": field 'median_tpot_ms': missing (and no itls to compute it from)"};
  return std::pair{ttft, tpot};
}

std::pair<double, double> simulated_medians_ms(const engine_options& options, const vllm_bench_result& m,
                                               std::uint32_t max_requests) {
  vllm_bench_result subset = m;
  if (subset.input_lens.size() > max_requests) {
    subset.input_lens.resize(max_requests);
    subset.output_lens.resize(max_requests);
  }
  const auto s = run_to_end(options, make_vllm_bench_load(subset)).summary.service;
  return {1e3 * s.latency.ttft_s.p50, 1e3 * s.latency.tpot_s.p50};
}

expected<calibration, std::string> fit_calibration(const engine_options& base,
                                                   const std::vector<vllm_bench_result>& measured,
                                                   const calibration_options& options) {
  if (base.gpu.empty()) return unexpected{std::string("calibrate needs --gpu: the GPU the measurements ran on")};
  if (measured.empty()) return unexpected{std::string("calibrate needs at least one --measured file")};
  std::vector<std::pair<double, double>> targets;
  for (const auto& m : measured) {
    auto t = measured_medians_ms(m);
    if (!t) return unexpected{t.error()};
    targets.push_back(*t);
  }
  auto start_gpu = resolve_gpu(base.gpu);
  if (!start_gpu) return unexpected{"--gpu: " + start_gpu.error()};
  engine_options o = base;
  o.timing_model = timing_kind::roofline;
  if (auto why = validate(o)) return unexpected{*why};

  calibration c;
  const auto cost = [&](const std::vector<double>& x) {
    ++c.evaluations;
    const auto trial = with_params(o, x);
    double sum = 0;
    for (std::size_t i = 0; i < measured.size(); ++i) {
      const auto [ttft, tpot] = simulated_medians_ms(trial, measured[i], options.max_requests);
      const double a = std::log(ttft / targets[i].first), b = std::log(tpot / targets[i].second);
      sum += a * a + b * b;
    }
    return std::isfinite(sum) ? sum : 1e30;
  };

  // Nelder–Mead from the GPU's own factors.
  const double eta_c = base.compute_efficiency > 0 ? base.compute_efficiency : start_gpu->compute_efficiency;
  const double eta_m = base.memory_efficiency > 0 ? base.memory_efficiency : start_gpu->memory_efficiency;
  const double per_layer = base.layer_overhead_s > 0 ? base.layer_overhead_s : start_gpu->layer_overhead_s;
  const double per_sequence = base.sequence_overhead_s > 0 ? base.sequence_overhead_s
                                                           : std::max(start_gpu->sequence_overhead_s, 1e-6);
  const std::vector<double> start = {logit(std::min(eta_c, 0.99)), logit(std::min(eta_m, 0.99)),
                                     std::log(std::max(per_layer, 1e-7)), std::log(per_sequence)};
  const auto found = nelder_mead([&](const std::vector<double>& x) { return cost(x); }, start,
                                 {0.5, 0.5, 1.0, 1.0}, options.max_evaluations);
  const auto fitted = with_params(o, found.best);
  c.model = base.model;
  c.gpu = base.gpu;
  c.tensor_parallel = base.tensor_parallel;
  c.compute_efficiency = fitted.compute_efficiency;
  c.memory_efficiency = fitted.memory_efficiency;
  // The step overhead is held at the GPU's: with the layer count fixed, a fixed cost per step and
  // one per layer are the same thing to a calibration, so the fit moves only the per-layer one.
  c.step_overhead_s = base.step_overhead_s > 0 ? base.step_overhead_s : start_gpu->step_overhead_s;
  c.layer_overhead_s = fitted.layer_overhead_s;
  c.sequence_overhead_s = fitted.sequence_overhead_s;
  double squares = 0;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const auto [ttft, tpot] = simulated_medians_ms(fitted, measured[i], options.max_requests);
    c.residuals.push_back({measured[i].source, targets[i].first, ttft, targets[i].second, tpot});
    const double a = ttft / targets[i].first - 1, b = tpot / targets[i].second - 1;
    squares += a * a + b * b;
  }
  c.rms_relative_error = std::sqrt(squares / (2.0 * static_cast<double>(measured.size())));
  return c;
}

}  // namespace kvscope
