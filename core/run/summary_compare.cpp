#include "run/summary_compare.hpp"

#include <cassert>
#include <cmath>
#include <cstdio>
#include <string>

namespace kvscope {

std::span<const std::string_view> headline_metric_keys() {
  static constexpr std::string_view keys[] = {
      "goodput_rps",          "latency.ttft_s.p50",        "latency.ttft_s.p99",
      "latency.tpot_s.p50",   "latency.tpot_s.p99",        "attention_error_exposure",
      "level_transitions",    "preemptions",               "peak_bytes_per_level.fp16",
      "peak_bytes_per_level.q8", "peak_bytes_per_level.fp8", "peak_bytes_per_level.q4",
      "peak_bytes_per_level.q3",
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
    c.relative = reference[i] != 0 ? c.delta / std::fabs(reference[i]) : NAN;
    c.verdict = judge(c.info->better, c.delta);
    out.push_back(c);
  }
  return out;
}

namespace {

// A metric the summary holds as a whole number (preemptions, transitions): said as a count.
bool is_count(const metric_change& c) {
  for (const summary_metric& m : summary_metric_table()) {
    if (m.info.key == c.info->key) return std::holds_alternative<std::uint64_t>(m.get(run_summary{}));
  }
  return false;
}

}  // namespace

std::string headline_name(std::string_view key) {
  if (key == "goodput_rps") return "goodput";
  if (key == "attention_error_exposure") return "attention error";
  if (key == "level_transitions") return "transitions";
  std::string name(key);
  const auto replace = [&name](std::string_view from, std::string_view to) {
    if (const auto at = name.find(from); at != std::string::npos) name.replace(at, from.size(), to);
  };
  replace("latency.", "");
  replace("_s.", " ");
  replace("peak_bytes_per_level.", "peak ");
  for (std::string_view upper : {"ttft", "tpot", "itl"}) {
    if (name.starts_with(upper)) {
      for (std::size_t i = 0; i < upper.size(); ++i) name[i] = static_cast<char>(name[i] - 'a' + 'A');
    }
  }
  return name;
}

std::string percent_change(double relative) {
  const double p = 100 * relative;
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(p) < 9.95 ? "%+.1f %%" : "%+.0f %%", p);
  return buf;
}

bool material(const metric_change& c) {
  if (std::isnan(c.delta) || c.delta == 0) return false;
  if (is_count(c) || c.reference == 0) return true;
  return std::fabs(c.relative) >= material_change_share;
}

std::string change_summary(std::span<const metric_change> changes) {
  std::string reals, counts;
  const auto add = [](std::string& to, const std::string& what) { to += (to.empty() ? "" : ", ") + what; };
  double peak_ref = 0, peak_other = 0;
  bool peak_known = true;
  for (const metric_change& c : changes) {
    if (c.info->key.starts_with("peak_bytes_per_level.")) {
      peak_known = peak_known && !std::isnan(c.reference) && !std::isnan(c.other);
      peak_ref += c.reference;
      peak_other += c.other;
      continue;
    }
    if (!material(c)) continue;
    if (is_count(c)) {
      const auto n = static_cast<long long>(std::llround(std::fabs(c.delta)));
      add(counts, std::to_string(n) + (c.delta > 0 ? " more " : " fewer ") + headline_name(c.info->key));
    } else if (std::isnan(c.relative)) {
      add(reals, headline_name(c.info->key) + " from 0");
    } else {
      add(reals, percent_change(c.relative) + " " + headline_name(c.info->key));
    }
  }
  if (peak_known && peak_ref > 0 && std::fabs(peak_other - peak_ref) >= material_change_share * peak_ref) {
    add(reals, percent_change((peak_other - peak_ref) / peak_ref) + " peak memory");
  }
  if (reals.empty() && counts.empty()) return "no headline changes by 1 % or more";
  return reals + (reals.empty() || counts.empty() ? "" : "; ") + counts;
}

}  // namespace kvscope
