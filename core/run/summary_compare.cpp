#include "run/summary_compare.hpp"

#include <cassert>
#include <cmath>
#include <string>

namespace kvscope {

std::span<const std::string_view> headline_metric_keys() {
  static constexpr std::string_view keys[] = {
      "goodput_rps",          "latency.ttft_s.p50",        "latency.ttft_s.p99",
      "latency.tpot_s.p50",   "latency.tpot_s.p99",        "attention_error_exposure",
      "level_transitions",    "preemptions",               "peak_bytes_per_level.fp16",
      "peak_bytes_per_level.q8", "peak_bytes_per_level.fp8", "peak_bytes_per_level.q4",
  };
  return keys;
}

std::optional<double> summary_number(const run_summary& s, std::string_view key) {
  for (const summary_metric& m : summary_metric_table()) {
    if (m.info.key != key) continue;
    const metric_value v = m.get(s);
    if (const auto* u = std::get_if<std::uint64_t>(&v)) return static_cast<double>(*u);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    return std::nullopt;
  }
  return std::nullopt;
}

std::vector<double> headline_values(const run_summary& s) {
  std::vector<double> out;
  for (std::string_view key : headline_metric_keys()) out.push_back(summary_number(s, key).value_or(NAN));
  return out;
}

change_verdict judge(better_when better, double delta) {
  if (std::isnan(delta)) return change_verdict::neutral;
  if (delta == 0) return change_verdict::same;
  if (better == better_when::neither) return change_verdict::neutral;
  return (delta > 0) == (better == better_when::higher) ? change_verdict::better : change_verdict::worse;
}

std::vector<metric_change> compare_headlines(std::span<const double> reference, std::span<const double> other) {
  const auto keys = headline_metric_keys();
  assert(reference.size() == keys.size() && other.size() == keys.size());
  std::vector<metric_change> out;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    metric_change c;
    c.info = find_metric(keys[i]);
    assert(c.info && "a headline key missing from the metric table");
    c.reference = reference[i];
    c.other = other[i];
    c.delta = other[i] - reference[i];
    c.verdict = judge(c.info->better, c.delta);
    out.push_back(c);
  }
  return out;
}

}  // namespace kvscope
