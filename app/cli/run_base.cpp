#include "run_base.hpp"

#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "commands.hpp"
#include "engine/engine_setup.hpp"
#include "io/policy_file.hpp"
#include "load/load_error.hpp"

namespace kvscope::cli {

void run_base_flags::add_to(CLI::App& cmd, unsigned place, const engine_options& defaults) {
  add_load_options(cmd, load);
  std::vector<std::string> presets;
  for (auto name : policy_preset_names()) presets.emplace_back(name);
  auto* policy = cmd.add_option("--policy", policy_path, "Policy config file (.json or .toml)")
                     ->check(CLI::ExistingFile);
  auto* preset_option = cmd.add_option("--preset", preset, "Policy preset (default: default)")
                            ->check(CLI::IsMember(presets));
  policy->excludes(preset_option);
  preset_option->excludes(policy);
  flags.add_to(cmd, place, defaults);
}

expected<run_description, std::string> run_base_flags::build(const engine_options& defaults) const {
  run_description run;
  auto& e = run.options;
  e = defaults;
  if (!policy_path.empty()) {
    auto config = read_policy_config(policy_path);
    if (!config) return unexpected{config.error()};
    e.policy = *config;
  } else if (!preset.empty()) {
    e.policy = *policy_preset(preset);
  }
  if (auto applied = flags.apply(e); !applied) return unexpected{applied.error()};
  if (auto resolved = resolve_run_setup(run); !resolved) return unexpected{with_flag_name(resolved.error())};
  // Limits typed in milliseconds would pass every request: say so, but run what was asked.
  for (const auto& warning : slo_unit_warnings(run.setup->slo)) print_warning(with_flag_name(warning));
  run.load_spec = load.spec;
  run.format = parse_load_format(load.format).value_or(load_format::automatic);
  run.skip_bad_rows = load.skip_bad_rows;
  return run;
}

std::vector<std::string> run_base_flags::typed() const {
  std::vector<std::string> out;
  if (!policy_path.empty()) out.push_back("--policy " + policy_path);
  if (!preset.empty()) out.push_back("--preset " + preset);
  for (auto& f : flags.given()) out.push_back(std::move(f));
  return out;
}

std::vector<named_path> run_base_flags::file_inputs() const {
  std::vector<named_path> out{{"--load", load_file_of(load.spec)}, {"--policy", policy_path}};
  for (auto& f : flags.file_inputs()) out.push_back(std::move(f));
  return out;
}

int check_trace(const run_description& run) {
  try {
    auto source = open_run_load(run);  // parses a generator spec: an unknown key is refused here
    if (run.load_spec.starts_with("gen:")) return exit_ok;  // its requests are well formed by construction
    progress_printer progress("checking " + run.load_spec);
    for_each_request(*source, [](const request&) {}, progress.callback());
    progress.finish();
    report_skipped(*source);  // --skip-bad-rows: how many, and where the first ones were
  } catch (const load_error& err) {
    print_error(err.what());
    return err.kind() == load_error_kind::io_failure ? exit_runtime_failure : exit_bad_input;
  }
  return exit_ok;
}

}  // namespace kvscope::cli
