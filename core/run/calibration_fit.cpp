#include "run/calibration_fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "model/builtin_models.hpp"
#include "run/run_service.hpp"
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
constexpr int dims = 4;
using point = std::array<double, dims>;

double logit(double p) { return std::log(p / (1 - p)); }
double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

engine_options with_params(engine_options o, const point& x) {
  o.compute_efficiency = std::clamp(sigmoid(x[0]), 0.01, 1.0);
  o.memory_efficiency = std::clamp(sigmoid(x[1]), 0.01, 1.0);
  o.step_overhead_s = std::clamp(std::exp(x[2]), 1e-7, 1.0);
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
  const auto cost = [&](const point& x) {
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

  // Nelder–Mead (standard coefficients), from the GPU's own factors.
  const double eta_c = base.compute_efficiency > 0 ? base.compute_efficiency : start_gpu->compute_efficiency;
  const double eta_m = base.memory_efficiency > 0 ? base.memory_efficiency : start_gpu->memory_efficiency;
  const double overhead = base.step_overhead_s > 0 ? base.step_overhead_s : start_gpu->step_overhead_s;
  const double per_sequence = base.sequence_overhead_s > 0 ? base.sequence_overhead_s
                                                           : std::max(start_gpu->sequence_overhead_s, 1e-6);
  std::array<point, dims + 1> simplex;
  simplex[0] = {logit(std::min(eta_c, 0.99)), logit(std::min(eta_m, 0.99)), std::log(overhead),
                std::log(per_sequence)};
  for (int d = 0; d < dims; ++d) {
    simplex[d + 1] = simplex[0];
    simplex[d + 1][d] += d >= 2 ? 1.0 : 0.5;
  }
  std::array<double, dims + 1> f{};
  for (int i = 0; i <= dims; ++i) f[i] = cost(simplex[i]);
  while (c.evaluations < options.max_evaluations) {
    std::array<int, dims + 1> order{};
    for (int i = 0; i <= dims; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return f[a] < f[b]; });
    const int best = order[0], worst = order[dims], second = order[dims - 1];
    double spread = 0;
    for (int i = 1; i <= dims; ++i) {
      for (int d = 0; d < dims; ++d) spread = std::max(spread, std::fabs(simplex[order[i]][d] - simplex[best][d]));
    }
    if (spread < 1e-5 || f[best] < 1e-14) break;
    point centroid{};
    for (int i = 0; i < dims; ++i) {
      for (int d = 0; d < dims; ++d) centroid[d] += simplex[order[i]][d] / dims;
    }
    const auto along = [&](double t) {
      point p;
      for (int d = 0; d < dims; ++d) p[d] = centroid[d] + t * (simplex[worst][d] - centroid[d]);
      return p;
    };
    const point reflected = along(-1);
    const double fr = cost(reflected);
    if (fr < f[best]) {
      const point expanded = along(-2);
      const double fe = cost(expanded);
      if (fe < fr) {
        simplex[worst] = expanded, f[worst] = fe;
      } else {
        simplex[worst] = reflected, f[worst] = fr;
      }
    } else if (fr < f[second]) {
      simplex[worst] = reflected, f[worst] = fr;
    } else {
      const point contracted = along(fr < f[worst] ? -0.5 : 0.5);
      const double fc = cost(contracted);
      if (fc < std::min(fr, f[worst])) {
        simplex[worst] = contracted, f[worst] = fc;
      } else {
        for (int i = 1; i <= dims; ++i) {
          const int k = order[i];
          for (int d = 0; d < dims; ++d) simplex[k][d] = simplex[best][d] + 0.5 * (simplex[k][d] - simplex[best][d]);
          f[k] = cost(simplex[k]);
        }
      }
    }
  }
  const int best = static_cast<int>(std::min_element(f.begin(), f.end()) - f.begin());
  const auto fitted = with_params(o, simplex[best]);
  c.model = base.model;
  c.gpu = base.gpu;
  c.tensor_parallel = base.tensor_parallel;
  c.compute_efficiency = fitted.compute_efficiency;
  c.memory_efficiency = fitted.memory_efficiency;
  c.step_overhead_s = fitted.step_overhead_s;
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
