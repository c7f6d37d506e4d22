#include "sweep/config_apply.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "engine/engine_setup.hpp"
#include "io/policy_file.hpp"
#include "run/option_table.hpp"
#include "util/closest_name.hpp"

namespace kvscope {

const option_spec* find_sweep_option(std::string_view name) {
  if (const auto* spec = find_option(name)) return spec;
  std::string dashed(name);
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  return find_option(dashed);
}

namespace {

// What an axis may name, for "did you mean": every option by flag and key, and the extra axes.
std::vector<std::string> sweep_setting_names() {
  std::vector<std::string> names{"preset", "policy", "rate_scale"};
  for (const auto& spec : option_table()) {
    std::string underscored(spec.flag);
    std::replace(underscored.begin(), underscored.end(), '-', '_');
    names.emplace_back(spec.flag);
    if (underscored != spec.flag) names.push_back(std::move(underscored));
    if (!spec.key.empty() && spec.key != names.back()) names.emplace_back(spec.key);
  }
  return names;
}

bool replaces_policy(std::string_view name) { return name == "preset" || name == "policy"; }

// rate_scale=2: the load's requests arrive twice as fast (arrival times halved).
expected<void, std::string> apply_rate_scale(run_description& run, const std::string& text) {
  double factor = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), factor);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty() || !(factor > 0) ||
      !std::isfinite(factor)) {
    return unexpected{"rate_scale: expected a positive number (2 = arrivals twice as fast), got '" + text + "'"};
  }
  run.arrival_time_scale = 1 / factor;
  return {};
}

expected<void, std::string> apply_setting(run_description& run, const sweep_setting& s) {
  const std::string who = s.name + ": ";
  if (s.name == "preset") {
    const auto preset = policy_preset(s.value);
    if (!preset) {
      std::string names;
      for (auto n : policy_preset_names()) names += (names.empty() ? "" : ", ") + std::string(n);
      return unexpected{who + "unknown preset '" + s.value + "' (" + names + ")"};
    }
    run.options.policy = *preset;
    return {};
  }
  if (s.name == "policy") {
    auto config = read_policy_config(s.value);
    if (!config) return unexpected{who + config.error()};
    run.options.policy = *config;
    return {};
  }
  if (s.name == "rate_scale") return apply_rate_scale(run, s.value);
  const auto* spec = find_sweep_option(s.name);
  if (!spec) {
    return unexpected{"unknown option '" + s.name +
                      "' (an option of simulate --help by its flag or key, or preset, policy, rate_scale)" +
                      did_you_mean(s.name, sweep_setting_names())};
  }
  // A flag typed as --no-<name> on the command line (prefix_caching) takes true or false here.
  auto value = parse_option_text(*spec, s.value);
  if (!value) return unexpected{who + value.error()};
  spec->set(run.options, *value);
  return {};
}

}  // namespace

bool is_policy_setting(std::string_view name) {
  if (replaces_policy(name)) return true;
  const auto* spec = find_sweep_option(name);
  return spec && spec->key.empty();
}

expected<void, std::string> apply_config(run_description& run, const sweep_config& config) {
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& s : config) {
      if (replaces_policy(s.name) != (pass == 0)) continue;
      if (auto r = apply_setting(run, s); !r) return r;
    }
  }
  return {};
}

namespace {

// Where column `name` is first set, for messages: "--grid" or "FILE:LINE".
const std::string& first_origin(const sweep_plan& plan, const std::string& name) {
  for (std::size_t i = 0; i < plan.configs.size(); ++i) {
    if (find_setting(plan.configs[i], name)) return plan.origins[i];
  }
  return plan.origins.front();
}

// Two columns that set one option (q8_threshold and q8-threshold): one would silently override
// the other in a config, and the CSV would show both.
expected<void, std::string> check_spellings(const sweep_plan& plan) {
  for (std::size_t b = 0; b < plan.columns.size(); ++b) {
    const auto* spec = find_sweep_option(plan.columns[b]);
    if (!spec) continue;
    for (std::size_t a = 0; a < b; ++a) {
      if (find_sweep_option(plan.columns[a]) != spec) continue;
      return unexpected{first_origin(plan, plan.columns[b]) + ": '" + plan.columns[a] + "' (" +
                        first_origin(plan, plan.columns[a]) + ") and '" + plan.columns[b] +
                        "' name the same option --" + std::string(spec->flag) + ": spell it one way"};
    }
  }
  return {};
}

}  // namespace

expected<std::vector<std::string>, std::string> check_plan(const run_description& base, const sweep_plan& plan,
                                                           bool invalid_ok) {
  if (auto spelled = check_spellings(plan); !spelled) return unexpected{spelled.error()};
  std::vector<std::string> reasons(plan.configs.size());
  for (std::size_t i = 0; i < plan.configs.size(); ++i) {
    const std::string who = plan.origins[i] + ": config " + std::to_string(i) + " (" + describe(plan.configs[i]) + "): ";
    run_description run = base;
    if (auto r = apply_config(run, plan.configs[i]); !r) return unexpected{who + r.error()};
    if (auto resolved = resolve_run_setup(run); !resolved) {
      if (!invalid_ok) return unexpected{who + resolved.error()};
      reasons[i] = resolved.error();
    }
  }
  return reasons;
}

run_description config_run(const run_description& base, const sweep_config& config) {
  run_description run = base;
  if (auto r = apply_config(run, config); !r) throw std::invalid_argument(r.error());
  // Resolved here from the base's files; a config the options refuse keeps no setup, and its
  // engine reports why as any run does.
  if (!resolve_run_setup(run)) run.setup.reset();
  return run;
}

}  // namespace kvscope
