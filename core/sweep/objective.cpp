#include "sweep/objective.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <vector>

#include "outcome/slo.hpp"
#include "run/metric_table.hpp"
#include "util/closest_name.hpp"
#include "util/number_text.hpp"
#include "util/trim.hpp"

namespace kvscope {
namespace {



}  // namespace

expected<std::vector<objective>, std::string> parse_objectives(std::string_view text, std::string_view who) {
  std::vector<objective> out;
  const std::string prefix = std::string(who) + ": ";
  for (std::size_t start = 0; start <= text.size();) {
    const auto comma = std::min(text.find(',', start), text.size());
    const auto item = trim(text.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) return unexpected{prefix + "an empty objective"};
    objective o;
    if (item.starts_with("max:")) {
      o = {std::string(trim(item.substr(4))), direction::maximize};
    } else if (item.starts_with("min:")) {
      o = {std::string(trim(item.substr(4))), direction::minimize};
    } else {
      auto known = metric_objective(item);
      if (!known) {
        const std::string name(item);
        if (!find_metric(item)) {
          std::vector<std::string_view> metrics;
          for (const auto& m : summary_metric_table()) metrics.push_back(m.info.key);
          return unexpected{prefix + "'" + name + "': no such metric" + did_you_mean(item, metrics) +
                            "; any other column needs max:" + name + " or min:" + name};
        }
        return unexpected{prefix + "'" + name + "': no direction known: write max:" + name + " or min:" + name};
      }
      o = std::move(*known);
    }
    if (o.key.empty()) return unexpected{prefix + "'" + std::string(item) + "': no metric named"};
    for (const auto& earlier : out) {
      if (earlier.key == o.key) return unexpected{prefix + "'" + o.key + "' given twice"};
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::optional<objective> metric_objective(std::string_view key) {
  const auto* info = find_metric(key);
  if (!info || info->better == better_when::neither) return std::nullopt;
  return objective{std::string(key), info->better == better_when::higher ? direction::maximize : direction::minimize};
}

bool better(const objective& o, double a, double b) noexcept {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return o.dir == direction::maximize ? a > b : a < b;
}

expected<constraint, std::string> parse_constraint(std::string_view text, std::string_view who) {
  static constexpr std::pair<std::string_view, comparison> ops[] = {
      {"<=", comparison::at_most}, {">=", comparison::at_least}, {"<", comparison::below}, {">", comparison::above}};
  const std::string prefix = std::string(who) + ": '" + std::string(text) + "': ";
  for (const auto& [spelling, op] : ops) {
    const auto at = text.find(spelling);
    if (at == std::string_view::npos) continue;
    constraint c;
    c.key = std::string(trim(text.substr(0, at)));
    c.op = op;
    const auto number = trim(text.substr(at + spelling.size()));
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), c.bound);
    if (ec != std::errc{} || end != number.data() + number.size() || number.empty() || !std::isfinite(c.bound)) {
      return unexpected{prefix + "'" + std::string(number) + "' is not a number"};
    }
    if (c.key.empty()) return unexpected{prefix + "no metric named"};
    return c;
  }
  return unexpected{prefix + "expected METRIC<=NUMBER (or <, >=, >)"};
}

bool satisfied(const constraint& c, double value) noexcept {
  switch (c.op) {
    case comparison::at_most: return value <= c.bound;
    case comparison::below: return value < c.bound;
    case comparison::at_least: return value >= c.bound;
    case comparison::above: return value > c.bound;
  }
  return false;
}

double violation(const constraint& c, double value) noexcept {
  if (std::isnan(value)) return std::numeric_limits<double>::infinity();
  if (satisfied(c, value)) return 0;
  const double scale = std::max(std::fabs(c.bound), 1e-12);
  const double miss = std::fabs(value - c.bound) / scale;
  // A strict bound met with equality still misses: count it as the least violation.
  return miss > 0 ? miss : std::numeric_limits<double>::min();
}

std::optional<std::string> implausible_bound(const constraint& c, std::string_view who) {
  // "latency.ttft_s.p99": a latency statistic, in seconds, of one of the SLO's kinds.
  constexpr std::string_view prefix = "latency.";
  const std::string_view key = c.key;
  const auto* info = find_metric(key);
  const auto unit_end = key.find("_s.");
  if (!info || info->unit != "s" || !key.starts_with(prefix) || unit_end == std::string_view::npos) {
    return std::nullopt;
  }
  const auto why = implausible_latency_limit(key.substr(prefix.size(), unit_end - prefix.size()), c.bound);
  if (!why) return std::nullopt;
  constraint in_seconds = c;
  in_seconds.bound = c.bound / 1000;
  return std::string(who) + ": '" + to_string(c) + "': " + *why + "; if it is in milliseconds, write " +
         to_string(in_seconds);
}

std::string to_string(const constraint& c) {
  const char* op = c.op == comparison::at_most ? "<=" : c.op == comparison::below ? "<" : c.op == comparison::at_least ? ">=" : ">";
  return c.key + op + shortest(c.bound);
}

std::string to_string(const objective& o) {
  return (o.dir == direction::maximize ? "max:" : "min:") + o.key;
}

}  // namespace kvscope
