#include "sweep/config_apply.hpp"

#include <algorithm>
#include <stdexcept>

#include "io/policy_file.hpp"
#include "run/option_table.hpp"

namespace kvscope {
namespace {

const option_spec* find_sweep_option(std::string_view name) {
  if (const auto* spec = find_option(name)) return spec;
  std::string dashed(name);
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  return find_option(dashed);
}

bool replaces_policy(std::string_view name) { return name == "preset" || name == "policy"; }

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
  const auto* spec = find_sweep_option(s.name);
  if (!spec) return unexpected{"unknown option '" + s.name + "' (an option of simulate --help by its flag or key, or preset, policy)"};
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

bool is_sweep_name(std::string_view name) { return replaces_policy(name) || find_sweep_option(name); }

expected<void, std::string> apply_config(run_description& run, const sweep_config& config) {
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& s : config) {
      if (replaces_policy(s.name) != (pass == 0)) continue;
      if (auto r = apply_setting(run, s); !r) return r;
    }
  }
  return {};
}

expected<std::vector<std::string>, std::string> check_plan(const run_description& base, const sweep_plan& plan,
                                                           bool invalid_ok) {
  std::vector<std::string> reasons(plan.configs.size());
  for (std::size_t i = 0; i < plan.configs.size(); ++i) {
    const std::string who = plan.origins[i] + ": config " + std::to_string(i) + " (" + describe(plan.configs[i]) + "): ";
    run_description run = base;
    if (auto r = apply_config(run, plan.configs[i]); !r) return unexpected{who + r.error()};
    if (auto reason = validate(run.options)) {
      if (!invalid_ok) return unexpected{who + *reason};
      reasons[i] = std::move(*reason);
    }
  }
  return reasons;
}

run_description config_run(const run_description& base, const sweep_config& config) {
  run_description run = base;
  if (auto r = apply_config(run, config); !r) throw std::invalid_argument(r.error());
  return run;
}

}  // namespace kvscope
