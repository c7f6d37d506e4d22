#include "sweep/fidelity.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "io/bench_table.hpp"
#include "policy/policy_config.hpp"
#include "run/bench_replay.hpp"
#include "run/calibration_fit.hpp"

namespace kvscope {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

fidelity_values predicted_figures(const bench_figures& f) {
  fidelity_values v{};
  v.fill(nan);
  const auto set = [&](fidelity_figure which, double x) { v[static_cast<std::size_t>(which)] = x; };
  set(fidelity_figure::request_throughput, f.request_throughput);
  set(fidelity_figure::output_throughput, f.output_throughput);
  set(fidelity_figure::ttft_mean, f.ttft[0]);
  set(fidelity_figure::ttft_p50, f.ttft[1]);
  set(fidelity_figure::tpot_mean, f.tpot[0]);
  set(fidelity_figure::tpot_p50, f.tpot[1]);
  set(fidelity_figure::itl_mean, f.itl[0]);
  set(fidelity_figure::itl_p50, f.itl[1]);
  set(fidelity_figure::e2e_mean, f.e2el[0]);
  set(fidelity_figure::e2e_p50, f.e2el[1]);
  return v;
}

double median(std::vector<double> v) {
  if (v.empty()) return nan;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

fidelity_median median_of(std::string kind, std::string group, std::span<const fidelity_check> checks,
                          const std::function<bool(const fidelity_point&)>& in_group) {
  fidelity_median m;
  m.kind = std::move(kind);
  m.group = std::move(group);
  for (std::size_t i = 0; i < fidelity_figure_count; ++i) {
    std::vector<double> errors;
    for (const auto& c : checks) {
      if (in_group(*c.point) && std::isfinite(c.error[i])) errors.push_back(c.error[i]);
    }
    m.points[i] = errors.size();
    m.median_error[i] = median(errors);
    for (auto& e : errors) e = std::abs(e);
    m.median_abs_error[i] = median(std::move(errors));
  }
  return m;
}

}  // namespace

engine_options fidelity_options(const fidelity_point& p, const std::optional<calibration>& c,
                                const timing_factors& factors) {
  engine_options o;
  o.payload = payload_mode::accounting;
  o.budget_bytes = 0;  // auto: as vLLM sizes it from gpu_memory_utilization
  o.policy = *policy_preset("fp16_only");  // vLLM keeps its KV cache at the model's precision
  for (const auto& [spec, value] : p.options) spec->set(o, value);
  o.compute_efficiency = factors.compute_efficiency;
  o.memory_efficiency = factors.memory_efficiency;
  o.kv_memory_efficiency = factors.kv_memory_efficiency;
  const bool v0 = o.vllm_engine == vllm_engine_kind::v0;
  o.step_overhead_s = v0 ? factors.v0_step_overhead_s : factors.step_overhead_s;
  o.layer_overhead_s = v0 ? factors.v0_layer_overhead_s : factors.layer_overhead_s;
  o.sequence_overhead_s = v0 ? factors.v0_sequence_overhead_s : factors.sequence_overhead_s;
  for (const auto& [gpu, share] : factors.sustained_share_by_gpu) {
    if (gpu == o.gpu) o.sustained_share = share;
  }
  if (c && c->gpu == o.gpu) apply_calibration(o, *c);
  return o;
}

fidelity_check check_fidelity_point(const fidelity_point& p, const std::optional<calibration>& c,
                                    const timing_factors& factors) {
  fidelity_check check;
  check.point = &p;
  const auto options = fidelity_options(p, c, factors);
  check.calibrated = c && c->gpu == options.gpu;
  // Judged as the point's benchmark judged the real server (run/bench_replay.hpp): a request the
  // file records with no output counts TTFT 0 there, and TPOT uses the file's output lengths.
  const auto replay = replay_vllm_bench(options, p.requests);
  check.finished = replay.summary.requests_finished;
  check.rejected = replay.summary.requests_rejected;
  check.first_rejection = replay.first_rejection;
  auto figures = figures_of(replay.summary, p.requests.max_concurrency, p.requests.request_rate);
  for (auto [out, stats] : {std::pair{&figures.ttft, &replay.ttft_s}, std::pair{&figures.tpot, &replay.tpot_s},
                            std::pair{&figures.e2el, &replay.e2e_s}}) {
    (*out)[0] = 1e3 * stats->mean;
    (*out)[1] = 1e3 * stats->p50;
    (*out)[2] = 1e3 * stats->p99;
  }
  const auto all = predicted_figures(figures);
  for (std::size_t i = 0; i < fidelity_figure_count; ++i) {
    const double measured = p.measured[i];
    check.predicted[i] = std::isfinite(measured) ? all[i] : nan;
    check.error[i] = std::isfinite(measured) ? (all[i] - measured) / measured : nan;
  }
  return check;
}

std::vector<fidelity_median> fidelity_medians(std::span<const fidelity_check> checks) {
  std::vector<fidelity_median> out;
  out.push_back(median_of("all", "all", checks, [](const fidelity_point&) { return true; }));
  for (const auto& [kind, field] : {std::pair{"gpu", &fidelity_point::gpu}, std::pair{"source", &fidelity_point::source},
                                    std::pair{"tp", &fidelity_point::tp}}) {
    const auto member = field;  // a structured binding cannot be captured before C++20's fix
    std::vector<std::string> seen;
    for (const auto& c : checks) {
      const auto& key = (*c.point).*member;
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.push_back(key);
      const std::string group = std::string_view(kind) == "tp" ? "tp " + key : key;  // "tp 2", not "2"
      out.push_back(median_of(kind, group, checks, [&](const fidelity_point& p) { return p.*member == key; }));
    }
  }
  return out;
}

}  // namespace kvscope
