#include "io/summary_format.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "outcome/latency_samples.hpp"
#include "run/metric_table.hpp"
#include "util/byte_size.hpp"

namespace kvscope {

namespace {

nlohmann::ordered_json range_json(predicted_range r) {
  const auto value = [](double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); };
  return nlohmann::ordered_json::array({value(r.lo), value(r.hi)});
}

// [lowest, highest] of each headline figure, in the summary's units (s, tokens/s).
nlohmann::ordered_json calibrated_range_json(const run_summary& s, const calibration& c) {
  nlohmann::ordered_json j;
  j["basis"] = std::string(to_string(c.basis));
  const auto& lat = s.service.latency;
  const bool none = c.basis == band_basis::none;
  const auto r = [none](predicted_range x) { return none ? nlohmann::ordered_json(nullptr) : range_json(x); };
  j["ttft_s"]["p50"] = r(ttft_range(c, lat.ttft_s.p50));
  j["tpot_s"]["p50"] = r(tpot_range(c, lat.tpot_s.p50));
  j["itl_s"]["p50"] = r(tpot_range(c, lat.itl_s.p50));
  j["e2e_s"]["p50"] = r(e2e_range(c, lat.e2e_s.p50));
  j["output_tokens_per_s"] = r(throughput_range(c, s.service.output_tokens_per_s));
  return j;
}

}  // namespace

std::string calibrated_range_text(const run_summary& s, const calibration& c) {
  if (c.basis == band_basis::none) {
    return "range           none: the calibration fitted as many parameters as it had figures, so its "
           "error is unknown\n";
  }
  const auto& lat = s.service.latency;
  char line[512];
  const auto t = ttft_range(c, 1e3 * lat.ttft_s.p50), p = tpot_range(c, 1e3 * lat.tpot_s.p50);
  const auto i = tpot_range(c, 1e3 * lat.itl_s.p50), e = e2e_range(c, 1e3 * lat.e2e_s.p50);
  const auto o = throughput_range(c, s.service.output_tokens_per_s);
  std::snprintf(line, sizeof line,
                "range (ms)      TTFT p50 %.1f-%.1f | TPOT p50 %.2f-%.2f | ITL p50 %.2f-%.2f | e2e p50 %.0f-%.0f; "
                "%.0f-%.0f output tokens/s (from the calibration's %s)\n",
                t.lo, t.hi, p.lo, p.hi, i.lo, i.hi, e.lo, e.hi, o.lo, o.hi,
                c.basis == band_basis::leave_one_out ? "leave-one-out errors" : "residuals");
  return line;
}

namespace {

// What the roofline's times are known to leave out, one clause each, or nothing. The shared
// factors were fitted on single-GPU servers; held-out tensor-parallel ones show what that leaves
// out, and a calibration on the user's own server at this tp replaces them. vLLM 0.6's V0 sends
// a step's tokens during the next step, which no calibration replaces: the engine does not model it.
std::optional<std::string> timing_caveat(const run_summary& s, const calibration* c) {
  if (s.gpu.empty() || s.timing != "roofline") return std::nullopt;
  std::string text;
  if (s.tensor_parallel > 1 && !(c && c->tensor_parallel == s.tensor_parallel)) {
    text = "tensor parallel: the step-time factors were fitted on single-GPU servers (the all-reduces are "
           "vLLM's, measured); against real vLLM servers at tp 2-8 (held out, docs/timing-model.md) TTFT came "
           "out low, and at tp 4-8 the throughput high: calibrate on your server";
  }
  if (s.vllm_v0) {
    if (!text.empty()) text += "; ";
    text += "vLLM V0: from 0.6.0 a server sends each step's tokens during the next step (async output "
            "processing, on by default), which is not modelled: its TTFT can be a step longer, most in a burst "
            "of prompts (docs/timing-model.md)";
  }
  if (text.empty()) return std::nullopt;
  return text;
}

// Where the roofline's step time went: matmuls and attention first, the terms a model, GPU or KV
// format moves most; all-reduces only at tp > 1.
std::optional<std::string> step_time_parts(const run_summary& s) {
  if (std::isnan(step_time_share(s, &step_time_totals::matmuls))) return std::nullopt;
  std::string line;
  const auto part = [&](const char* name, double step_time_totals::*term) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%s %.1f %%", line.empty() ? "" : ", ", name, 100 * step_time_share(s, term));
    line += buf;
  };
  part("matmuls", &step_time_totals::matmuls);
  part("attention", &step_time_totals::attention);
  if (s.tensor_parallel > 1) part("all-reduces", &step_time_totals::all_reduces);
  part("norms and activations", &step_time_totals::elementwise);
  part("overheads", &step_time_totals::overheads);
  return line;
}

}  // namespace

std::string summary_json(const run_summary& s, const calibration* c) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& metric : summary_metric_table()) {
    // "a.b.c" nests: j["a"]["b"]["c"].
    nlohmann::ordered_json* at = &j;
    std::string_view key = metric.info.key;
    for (auto dot = key.find('.'); dot != std::string_view::npos; dot = key.find('.')) {
      at = &(*at)[std::string(key.substr(0, dot))];
      key.remove_prefix(dot + 1);
    }
    auto& slot = (*at)[std::string(key)];
    std::visit(
        [&slot](const auto& v) {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, double>) {
            slot = std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
          } else {
            slot = v;
          }
        },
        metric.get(s));
  }
  if (c) j["calibrated_range"] = calibrated_range_json(s, *c);
  if (const auto caveat = timing_caveat(s, c)) j["timing_caveat"] = *caveat;  // only then
  if (!s.q4_format.empty()) {  // only then: a default run's summary is as before
    j["q4_storage"] = {{"format", s.q4_format},
                       {"q4o_channels", s.q4o_channels},
                       {"block_payload_bytes", s.q4_block_payload_bytes},
                       {"block_side_bytes", s.q4_block_side_bytes}};
  }
  return j.dump(2) + "\n";
}

namespace {

// Why the misses missed, and what to change (outcome/slo_misses.hpp, run/levers.hpp).
void append_misses(std::string& out, const run_summary& s) {
  const auto& m = s.service.misses;
  if (m.missed == 0) return;
  char line[256];
  const std::uint64_t completed = s.service.finished + s.service.rejected;
  std::snprintf(line, sizeof line, "missed          %llu requests (%.3g %% of %llu); each under the cause that cost it most:\n",
                static_cast<unsigned long long>(m.missed), 100.0 * static_cast<double>(m.missed) / static_cast<double>(completed),
                static_cast<unsigned long long>(completed));
  out += line;
  double seconds = 0;
  for (const double x : m.seconds) seconds += x;
  for (std::size_t c = 0; c < miss_cause_count; ++c) {
    if (m.requests[c] == 0 && m.seconds[c] <= 0) continue;
    const auto cause = static_cast<miss_cause>(c);
    std::snprintf(line, sizeof line, "  %-50s %7llu (%5.1f %%)   %10.1f s of their time (%4.1f %%)\n",
                  std::string(describe(cause)).c_str(), static_cast<unsigned long long>(m.requests[c]),
                  100.0 * static_cast<double>(m.requests[c]) / static_cast<double>(m.missed), m.seconds[c],
                  seconds > 0 ? 100.0 * m.seconds[c] / seconds : 0.0);
    out += line;
  }
  if (s.levers.overloaded) {
    std::snprintf(line, sizeof line,
                  "overloaded      %.4g s of steps for arrivals over %.4g s (%.3gx); %llu requests (%.3g %%) still waiting "
                  "when the last arrived: the waits above are this backlog\n",
                  s.demand.busy_s, s.demand.arrival_span_s, s.demand.ratio(),
                  static_cast<unsigned long long>(s.demand.waiting_at_last_arrival), 100 * s.demand.backlog_share());
    out += line;
  }
  out += "lever           " + s.levers.advice + "\n";
  if (!s.levers.space.empty()) out += "  try           tune --space '" + s.levers.space + "'\n";
  if (!s.levers.kv_note.empty()) out += "note            " + s.levers.kv_note + "\n";
}

}  // namespace

std::string summary_text(const run_summary& s, const calibration* c) {
  std::string out;
  // Each line printed at its full length: a long model, trace or GPU name must not cut a line.
  const auto add = [&out](const char* fmt, auto... args) {
    const int length = std::snprintf(nullptr, 0, fmt, args...);
    if (length <= 0) return;
    const std::size_t at = out.size();
    out.resize(at + static_cast<std::size_t>(length) + 1);  // room for snprintf's terminator
    std::snprintf(out.data() + at, static_cast<std::size_t>(length) + 1, fmt, args...);
    out.resize(at + static_cast<std::size_t>(length));
  };
  add("model %s, budget %s%s, load %s\n", s.model.c_str(), format_byte_size(s.budget_bytes).c_str(),
      s.budget_note.empty() ? "" : (" (" + s.budget_note + ")").c_str(), s.load.c_str());
  add("requests        %llu total, %llu finished, %llu rejected\n",
      static_cast<unsigned long long>(s.requests_total),
      static_cast<unsigned long long>(s.requests_finished),
      static_cast<unsigned long long>(s.requests_rejected));
  add("steps           %llu over %.1f s simulated, %.3f s wall\n",
      static_cast<unsigned long long>(s.steps), s.sim_seconds, s.wall_seconds);
  add("decode tokens   %llu (%.0f per wall second)\n",
      static_cast<unsigned long long>(s.decode_token_steps), s.decode_token_steps_per_s);
  add("KV usage        peak %.1f %%, mean %.1f %%\n", 100 * s.peak_usage, 100 * s.mean_usage);
  add("policy          %llu level transitions, final level %s, %llu blocks migrated\n",
      static_cast<unsigned long long>(s.level_transitions), std::string(tag(s.final_level)).c_str(),
      static_cast<unsigned long long>(s.migrated_blocks));
  add("preemptions     %llu (%llu tokens recomputed)\n", static_cast<unsigned long long>(s.preemptions),
      static_cast<unsigned long long>(s.service.recomputed_tokens));
  add("prefix cache    %.1f %% hit rate\n", 100 * s.prefix_cache_hit_rate);
  out += "peak bytes      ";
  for (precision p : all_precisions) {
    // q3 is kvscope's own level, reached only by a policy asking for it: named when it held bytes.
    if (p == precision::q3 && s.peak_bytes_per_level[ordinal(p)] == 0) continue;
    add("%s %s  ", std::string(tag(p)).c_str(),
        format_byte_size(s.peak_bytes_per_level[ordinal(p)]).c_str());
  }
  add("scales %s\n", format_byte_size(s.peak_scale_bytes).c_str());
  if (!s.q4_format.empty()) {
    add("q4 storage      %s, %u key channels a layer and kv head at int8: a q4 block is %s of codes + %s of "
        "scales and outlier records (counted with the scales)\n",
        s.q4_format.c_str(), s.q4o_channels, format_byte_size(s.q4_block_payload_bytes).c_str(),
        format_byte_size(s.q4_block_side_bytes).c_str());
  }
  if (s.gpu.empty()) {
    add("timing          linear step-time model (no GPU given: latencies are not a GPU's)\n");
  } else {
    add("timing          %s on %s%s\n", s.timing.c_str(), s.gpu.c_str(),
        s.tensor_parallel > 1 ? (" x" + std::to_string(s.tensor_parallel)).c_str() : "");
    if (const auto caveat = timing_caveat(s, c)) add("                %s\n", caveat->c_str());
    if (const auto parts = step_time_parts(s)) add("step time       %s\n", parts->c_str());
  }
  const auto& lat = s.service.latency;
  const auto ms = [](double seconds) { return 1e3 * seconds; };
  add("latency (ms)    TTFT p50 %.1f p99 %.1f | TPOT p50 %.2f p99 %.2f | ITL p50 %.2f | e2e p50 %.0f p99 %.0f\n",
      ms(lat.ttft_s.p50), ms(lat.ttft_s.p99), ms(lat.tpot_s.p50), ms(lat.tpot_s.p99), ms(lat.itl_s.p50),
      ms(lat.e2e_s.p50), ms(lat.e2e_s.p99));
  if (!s.service.latency_exact) {
    add("                percentiles within 0.5 %%: past %zu finished requests they are sketched, "
        "not kept, to hold memory constant\n",
        latency_samples::default_exact_limit);
  }
  add("throughput      %.2f requests/s, %.0f output tokens/s (simulated time)\n",
      s.service.requests_per_s, s.service.output_tokens_per_s);
  if (c) out += calibrated_range_text(s, *c);
  if (s.slo.empty()) {
    add("goodput         no --slo given: every finished request counts\n");
  } else {
    add("goodput         %.2f requests/s within %s (%.1f %% attained)\n", s.service.goodput_rps,
        s.slo.c_str(), 100 * s.service.slo_attainment);
    append_misses(out, s);
  }
  add("attention error exposure %.4f (mean expected relative error of attention from the levels read)\n",
      s.attention_error_exposure);
  bool any_quality = false;
  for (std::size_t l = 0; l < kv_level_count; ++l) any_quality = any_quality || std::isfinite(s.quant_rel_rmse[l]);
  if (any_quality) {
    out += "quality         ";
    for (precision p : all_precisions) {
      const int l = ordinal(p);
      if (!std::isfinite(s.quant_rel_rmse[l])) continue;
      add("%s rmse %.4f attn %.4f  ", std::string(tag(p)).c_str(), s.quant_rel_rmse[l],
          s.attention_rel_l2[l]);
    }
    out += "\n";
  }
  return out;
}

std::vector<std::pair<std::string, double>> summary_metrics(const run_summary& s) {
  // The figures a provenance records: the results, not the inputs or this machine's speed.
  static constexpr std::string_view keys[] = {"requests_finished", "requests_rejected",
                                              "preemptions",       "level_transitions",
                                              "peak_usage",        "mean_usage",
                                              "sim_seconds",       "prefix_cache_hit_rate"};
  std::vector<std::pair<std::string, double>> m;
  for (const auto& metric : summary_metric_table()) {
    const auto v = metric.get(s);
    bool wanted = false;
    for (auto k : keys) wanted = wanted || k == metric.info.key;
    const bool quant = metric.info.key.starts_with("quality.") &&
                       metric.info.key.ends_with(".quant_rel_rmse");
    if (!wanted && !quant) continue;
    const double x = std::holds_alternative<double>(v) ? std::get<double>(v)
                                                       : static_cast<double>(std::get<std::uint64_t>(v));
    if (quant) {
      if (!std::isfinite(x)) continue;
      // quality.q8.quant_rel_rmse -> quant_rel_rmse_q8, as provenance has always named it.
      const auto level = metric.info.key.substr(8, metric.info.key.find('.', 8) - 8);
      m.emplace_back("quant_rel_rmse_" + std::string(level), x);
    } else {
      m.emplace_back(std::string(metric.info.key), x);
    }
  }
  return m;
}

}  // namespace kvscope
