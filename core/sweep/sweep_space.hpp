#pragma once
// What a sweep runs: a list of configs in a fixed order. A config is a list of (name, value)
// settings as typed, applied over the sweep's base run (sweep/config_apply.hpp).
//
// From a grid: `q8_threshold=0.6,0.8 ewma_alpha=0.1:0.5:0.2 slo="ttft=0.5,tpot=0.05",ttft=1`
// (axes separated by blanks, values by commas, "FIRST:LAST:STEP" ranges expanded exactly,
// double-quoted values may hold commas and blanks); the configs are the cartesian product in
// the order the axes are given, the last axis fastest. From a file: one config per line,
// `name=value ...`, blank lines and `#` comments skipped.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/expected.hpp"

namespace kvscope {

struct sweep_axis {
  std::string name;
  std::vector<std::string> values;
};

struct sweep_setting {
  std::string name;
  std::string value;
  friend bool operator==(const sweep_setting&, const sweep_setting&) = default;
};

using sweep_config = std::vector<sweep_setting>;

struct sweep_plan {
  // The names the configs set, in order of first appearance: the CSV's config columns.
  std::vector<std::string> columns;
  std::vector<sweep_config> configs;
  // Where config i came from, for messages: "--grid", or "FILE:LINE".
  std::vector<std::string> origins;
  // Why config i cannot run, "" when it can; empty when every config can (see check_plan).
  std::vector<std::string> invalid;
};

// Parses a grid's axes. Errors name the axis: "--grid: axis 'ewma_alpha': '0.1:0.5:0': the
// step must not be 0"; a repeated axis, an empty value list or a token without '=' is refused.
// `who` names the flag in errors.
expected<std::vector<sweep_axis>, std::string> parse_grid(std::string_view text, std::string_view who = "--grid");

// The grid's configs (at most `max_configs`, else an error naming the count); their origin is `who`.
expected<sweep_plan, std::string> grid_plan(const std::vector<sweep_axis>& axes, std::string_view who = "--grid",
                                            std::size_t max_configs = 10'000'000);

// Parses a configs file's text; errors are "SOURCE:LINE: why".
expected<sweep_plan, std::string> parse_config_lines(std::string_view text, std::string_view source);

// The value a config gives `name`, or nullptr.
const std::string* find_setting(const sweep_config& config, std::string_view name);

// "q8_threshold=0.6 ewma_alpha=0.1": a config as one line (values with blanks or commas quoted).
std::string describe(const sweep_config& config);

}  // namespace kvscope
