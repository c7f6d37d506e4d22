#pragma once
// Objectives and constraints over metrics, as sweeps, Pareto fronts and tune name them:
//   objectives  "max:goodput_rps,min:attention_error_exposure,latency.ttft_s.p99"
//   constraint  "attention_error_exposure<=0.05" (<=, <, >=, >)
// A bare name takes its direction from the metric table's better-when.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.hpp"

namespace kvscope {

enum class direction { maximize, minimize };

struct objective {
  std::string key;
  direction dir = direction::maximize;
};

// Parses a comma-separated list; `who` names the flag in errors ("--objectives: 'foo': no
// direction: write max:foo or min:foo"). Names are not checked against any table here.
expected<std::vector<objective>, std::string> parse_objectives(std::string_view text, std::string_view who);

// The objective a metric's better-when gives (max for higher, min for lower); nullopt when the
// metric table does not know the key or says neither way is better.
std::optional<objective> metric_objective(std::string_view key);

// True when `a` is better than `b` under the objective (NaN is worse than any number).
bool better(const objective& o, double a, double b) noexcept;

enum class comparison { at_most, below, at_least, above };

struct constraint {
  std::string key;
  comparison op = comparison::at_most;
  double bound = 0;
};

// Parses "key<=0.05"; errors name `who`.
expected<constraint, std::string> parse_constraint(std::string_view text, std::string_view who);
// True when `value` satisfies it (NaN never does).
bool satisfied(const constraint& c, double value) noexcept;
// How far `value` is outside the bound, relative to the bound's size (0 when satisfied,
// infinity for NaN): how tune ranks configs none of which is feasible.
double violation(const constraint& c, double value) noexcept;
// A warning when the bound on a latency metric (latency.ttft_s.p99, ...) is implausible in
// seconds (outcome/slo.hpp's limits), with the bound it may have meant in milliseconds; `who`
// names the flag. nullopt for plausible bounds and other metrics.
std::optional<std::string> implausible_bound(const constraint& c, std::string_view who);
// "attention_error_exposure<=0.05".
std::string to_string(const constraint& c);
std::string to_string(const objective& o);

}  // namespace kvscope
