#pragma once
// A sweep config applied over a base run. A setting's name is an option of the option table
// (run/option_table.hpp) by its flag or its key, with '_' accepted for '-' (q8_threshold is
// --q8-threshold), `preset` (a policy preset) or `policy` (a policy config file) — those two
// replace the whole policy first, then the other settings apply in the config's order — or
// `rate_scale` (the load's arrival rate times this: run_description::arrival_time_scale).
#include <string>
#include <string_view>
#include <vector>

#include "run/run_description.hpp"
#include "sweep/sweep_space.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct option_spec;

// The option a setting's name sets (its flag or key, '_' standing for '-'); nullptr for preset,
// policy, rate_scale and unknown names.
const option_spec* find_sweep_option(std::string_view name);

// True when `name` sets (part of) the policy, which a policy config file holds: preset, policy
// and the policy's fields (the options without a session key of their own).
bool is_policy_setting(std::string_view name);

// Applies `config` to `run`; the error names the setting: "q8_threshold: --q8-threshold:
// expected a number in [0, 1], got '1.5'".
expected<void, std::string> apply_config(run_description& run, const sweep_config& config);

// Checks every config of `plan` over `base` before anything runs: one spelling per option
// (q8_threshold and q8-threshold in one plan are refused, naming both), names, values and validate()
// of the options that result. The first problem is named with its origin: "--grid: config 3
// (q8_threshold=0.9 q4_threshold=0.8): invalid kv-cache policy configuration: ...". With
// `invalid_ok`, a config whose values are each fine but which validate() refuses as a whole
// (q4_threshold below q8_threshold, a budget too small for the model) is no error: its reason
// is returned at its index ("" for the configs that can run).
expected<std::vector<std::string>, std::string> check_plan(const run_description& base, const sweep_plan& plan,
                                                           bool invalid_ok = false);

// The run of one config. Precondition: check_plan() accepted the plan it is from.
run_description config_run(const run_description& base, const sweep_config& config);

}  // namespace kvscope
