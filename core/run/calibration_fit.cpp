#include "run/calibration_fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <set>
#include <tuple>

#include "engine/engine_setup.hpp"
#include "run/bench_replay.hpp"
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

// The parameters a calibration may fit, in the order measurements determine them: a TTFT is
// mostly prefill arithmetic (compute efficiency); a TPOT at low concurrency mostly weight reads
// and the fixed cost of every layer; how TPOT grows with the batch, first the rate attention
// reads the paged KV cache at (a property of the server's attention kernel, and most of a large
// batch's decode step), then the cost per sequence; memory efficiency last, since with the
// layers' cost it only shifts every decode step alike.
constexpr std::size_t param_count = 5;
constexpr std::array<const char*, param_count> param_key = {
    "compute_efficiency", "layer_overhead_s", "kv_memory_efficiency", "sequence_overhead_s", "memory_efficiency"};
constexpr std::array<bool, param_count> param_is_share = {true, false, true, false, true};  // else a time
using coords = std::array<double, param_count>;  // logits of the efficiencies, logs of the overheads

engine_options with_coords(engine_options o, const coords& x) {
  o.compute_efficiency = std::clamp(sigmoid(x[0]), 0.01, 1.0);
  o.layer_overhead_s = std::clamp(std::exp(x[1]), 1e-9, 0.01);
  o.kv_memory_efficiency = std::clamp(sigmoid(x[2]), 0.01, 1.0);
  o.sequence_overhead_s = std::clamp(std::exp(x[3]), 1e-9, 0.01);
  o.memory_efficiency = std::clamp(sigmoid(x[4]), 0.01, 1.0);
  return o;
}

struct fit_problem {
  engine_options options;  // roofline on the GPU, step overhead held
  coords start{};          // the GPU's own factors
  const std::vector<vllm_bench_result>* measured = nullptr;
  std::vector<std::pair<double, double>> targets;  // measured TTFT, TPOT medians (ms)
  std::uint32_t max_requests = 0;
  std::uint32_t max_evaluations = 0;
  std::uint64_t evaluations = 0;
};

// log(simulated / measured) of each median of the files at x: TTFT, TPOT, TTFT, ...
std::vector<double> log_errors(fit_problem& p, const std::vector<std::size_t>& files, const coords& x) {
  const auto trial = with_coords(p.options, x);
  std::vector<double> out;
  for (const std::size_t i : files) {
    ++p.evaluations;
    const auto [ttft, tpot] = simulated_medians_ms(trial, (*p.measured)[i], p.max_requests);
    out.push_back(std::log(ttft / p.targets[i].first));
    out.push_back(std::log(tpot / p.targets[i].second));
  }
  return out;
}

// The parameters the files' figures determine, at most `figures` of them: in the order above, a
// parameter is fitted when moving it moves the figures (by more than 0.1 % for a step of about
// 20 %) in a direction the parameters already chosen do not (more than 15 degrees off their span).
// Otherwise two parameters would trade against each other and the fit pick one at random.
std::vector<std::size_t> determined(fit_problem& p, const std::vector<std::size_t>& files, std::uint32_t figures) {
  constexpr double step = 0.2, min_norm = 1e-3 / 0.2, min_share = 0.26;  // sin(15 degrees)
  const auto at_start = log_errors(p, files, p.start);
  std::vector<std::vector<double>> basis;  // orthonormal span of the chosen columns
  std::vector<std::size_t> chosen;
  for (std::size_t j = 0; j < param_count && chosen.size() < figures; ++j) {
    coords moved = p.start;
    moved[j] += step;
    auto column = log_errors(p, files, moved);
    for (std::size_t r = 0; r < column.size(); ++r) column[r] = (column[r] - at_start[r]) / step;
    const double norm = std::sqrt(std::inner_product(column.begin(), column.end(), column.begin(), 0.0));
    if (!(norm > min_norm)) continue;
    for (const auto& b : basis) {
      const double along = std::inner_product(column.begin(), column.end(), b.begin(), 0.0);
      for (std::size_t r = 0; r < column.size(); ++r) column[r] -= along * b[r];
    }
    const double left = std::sqrt(std::inner_product(column.begin(), column.end(), column.begin(), 0.0));
    if (!(left > min_share * norm)) continue;
    for (auto& v : column) v /= left;
    basis.push_back(std::move(column));
    chosen.push_back(j);
  }
  return chosen;
}

struct subset_fit {
  coords x{};
  std::vector<std::size_t> fitted;
};

// Nelder–Mead over the parameters the files determine, the rest at the start.
subset_fit fit_files(fit_problem& p, const std::vector<std::size_t>& files, std::uint32_t figures) {
  subset_fit out;
  out.x = p.start;
  out.fitted = determined(p, files, figures);
  if (out.fitted.empty()) return out;
  std::vector<double> start, steps;
  for (const std::size_t j : out.fitted) {
    start.push_back(p.start[j]);
    steps.push_back(param_is_share[j] ? 0.5 : 1.0);
  }
  const auto place = [&](const std::vector<double>& y) {
    coords x = p.start;
    for (std::size_t k = 0; k < out.fitted.size(); ++k) x[out.fitted[k]] = y[k];
    return x;
  };
  const auto cost = [&](const std::vector<double>& y) {
    double sum = 0;
    for (const double e : log_errors(p, files, place(y))) sum += e * e;
    return std::isfinite(sum) ? sum : 1e30;
  };
  out.x = place(nelder_mead(cost, start, steps, p.max_evaluations).best);
  return out;
}

calibration_residual residual_of(fit_problem& p, std::size_t file, const coords& x) {
  const auto [ttft, tpot] = simulated_medians_ms(with_coords(p.options, x), (*p.measured)[file], p.max_requests);
  return {(*p.measured)[file].source, p.targets[file].first, ttft, p.targets[file].second, tpot};
}

double rms_of(const std::vector<calibration_residual>& rs) {
  double squares = 0;
  for (const auto& r : rs) {
    const double a = r.predicted_ttft_ms / r.measured_ttft_ms - 1, b = r.predicted_tpot_ms / r.measured_tpot_ms - 1;
    squares += a * a + b * b;
  }
  return rs.empty() ? NAN : std::sqrt(squares / (2.0 * static_cast<double>(rs.size())));
}

calibration_band band_of(const std::vector<calibration_residual>& rs) {
  calibration_band b;
  for (const auto& r : rs) {
    const double a = r.predicted_ttft_ms / r.measured_ttft_ms - 1, t = r.predicted_tpot_ms / r.measured_tpot_ms - 1;
    b.ttft_lo = std::min(b.ttft_lo, a), b.ttft_hi = std::max(b.ttft_hi, a);
    b.tpot_lo = std::min(b.tpot_lo, t), b.tpot_hi = std::max(b.tpot_hi, t);
  }
  return b;
}

// Each file predicted by a fit on the others.
void leave_one_out(fit_problem& p, calibration& c) {
  const std::size_t n = p.measured->size();
  for (std::size_t out = 0; out < n; ++out) {
    std::vector<std::size_t> others;
    std::vector<vllm_bench_result> rest;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == out) continue;
      others.push_back(i);
      rest.push_back((*p.measured)[i]);
    }
    const auto fit = fit_files(p, others, independent_figures(rest));
    c.leave_one_out.push_back(residual_of(p, out, fit.x));
  }
  c.leave_one_out_rms_relative_error = rms_of(c.leave_one_out);
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
  if (!std::isfinite(tpot)) tpot = 1e3 * median(tpots_from_itls(m));
  if (!(ttft > 0)) return unexpected{m.source + ": field 'median_ttft_ms': missing (and no ttfts to compute it from)"};
  if (!(tpot > 0)) return unexpected{m.source + ": field 'median_tpot_ms': missing (and no itls to compute it from)"};
  return std::pair{ttft, tpot};
}

std::uint32_t independent_figures(const std::vector<vllm_bench_result>& measured) {
  std::set<std::tuple<std::uint32_t, double, long, long>> loads;
  for (const auto& m : measured) {
    const auto mean = [](const std::vector<std::uint32_t>& v) {
      return v.empty() ? 0L : std::lround(std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()));
    };
    loads.insert({m.max_concurrency.value_or(0), m.request_rate, mean(m.input_lens), mean(m.output_lens)});
  }
  return static_cast<std::uint32_t>(2 * loads.size());
}

std::pair<double, double> simulated_medians_ms(const engine_options& options, const vllm_bench_result& m,
                                               std::uint32_t max_requests) {
  const auto r = replay_vllm_bench(options, m, max_requests);
  return {1e3 * r.ttft_s.p50, 1e3 * r.tpot_s.p50};
}

void apply_calibration(engine_options& options, const calibration& c) {
  options.compute_efficiency = c.compute_efficiency;
  options.sustained_share = 1.0;
  options.memory_efficiency = c.memory_efficiency;
  if (c.kv_memory_efficiency > 0) options.kv_memory_efficiency = c.kv_memory_efficiency;  // 0: an older file
  options.step_overhead_s = c.step_overhead_s;
  options.layer_overhead_s = c.layer_overhead_s;
  options.sequence_overhead_s = c.sequence_overhead_s;
}

expected<calibration, std::string> fit_calibration(const engine_options& base,
                                                   const std::vector<vllm_bench_result>& measured,
                                                   const calibration_options& options) {
  if (base.gpu.empty()) return unexpected{std::string("calibrate needs --gpu: the GPU the measurements ran on")};
  if (measured.empty()) return unexpected{std::string("calibrate needs at least one --measured file")};
  fit_problem p;
  p.measured = &measured;
  p.max_requests = options.max_requests;
  p.max_evaluations = options.max_evaluations;
  for (const auto& m : measured) {
    auto t = measured_medians_ms(m);
    if (!t) return unexpected{t.error()};
    p.targets.push_back(*t);
  }
  p.options = base;
  p.options.timing_model = timing_kind::roofline;
  auto setup = resolve_setup(p.options);
  if (!setup) return unexpected{setup.error()};
  // The GPU's factors as this engine runs it (V0's host overheads under --vllm-engine v0), or the
  // options' overrides: where the fit starts, and what it holds.
  const gpu_spec& gpu = *setup->gpu;
  p.options.step_overhead_s = gpu.step_overhead_s;
  // Measured on this GPU, the compute efficiency is what it sustains against its own benchmark
  // rates: the fit runs at a sustained share of 1 and starts from (or holds) their product.
  p.options.sustained_share = 1.0;
  p.start = {logit(std::min(gpu.compute_efficiency * gpu.sustained_share, 0.99)), std::log(std::max(gpu.layer_overhead_s, 1e-7)),
             logit(std::min(gpu.kv_memory_efficiency, 0.99)), std::log(std::max(gpu.sequence_overhead_s, 1e-6)),
             logit(std::min(gpu.memory_efficiency, 0.99))};

  calibration c;
  c.model = base.model;
  c.gpu = base.gpu;
  c.tensor_parallel = base.tensor_parallel;
  c.independent_figures = independent_figures(measured);
  std::vector<std::size_t> all(measured.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  const auto fit = fit_files(p, all, c.independent_figures);
  const auto fitted = with_coords(p.options, fit.x);
  c.compute_efficiency = fitted.compute_efficiency;
  c.memory_efficiency = fitted.memory_efficiency;
  c.kv_memory_efficiency = fitted.kv_memory_efficiency;
  // The step overhead is held at the GPU's: with the layer count fixed, a fixed cost per step and
  // one per layer are the same thing to a calibration, so the fit moves only the per-layer one.
  c.step_overhead_s = gpu.step_overhead_s;
  c.layer_overhead_s = fitted.layer_overhead_s;
  c.sequence_overhead_s = fitted.sequence_overhead_s;
  for (std::size_t j = 0; j < param_count; ++j) {
    const bool is_fitted = std::find(fit.fitted.begin(), fit.fitted.end(), j) != fit.fitted.end();
    (is_fitted ? c.fitted : c.held).push_back(param_key[j]);
  }
  c.held.push_back("step_overhead_s");
  for (const std::size_t i : all) c.residuals.push_back(residual_of(p, i, fit.x));
  c.rms_relative_error = rms_of(c.residuals);
  if (options.leave_one_out && measured.size() >= 2) {
    leave_one_out(p, c);
    c.band = band_of(c.leave_one_out);
    c.basis = band_basis::leave_one_out;
  } else if (c.independent_figures > c.fitted.size()) {
    c.band = band_of(c.residuals);
    c.basis = band_basis::residuals;
  }
  c.evaluations = p.evaluations;
  return c;
}

}  // namespace kvscope
