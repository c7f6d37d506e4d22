// kvscope-cli: run the kvscope engine without a display — for scripts, sweeps and CI.
#include <CLI/CLI.hpp>

#include <exception>
#include <new>
#include <iostream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "kvscope_version.hpp"
#include "util/closest_name.hpp"
#include "util/quote_text.hpp"

namespace {

constexpr const char* out_of_memory_hint =
    " (a smaller --budget, a shorter load or --payload accounting needs less)";

// The subcommand that was running ("bench engine"), for messages.
std::string command_name(const CLI::App& app) {
  std::string name;
  for (const CLI::App* a = &app; !a->get_subcommands().empty();) {
    a = a->get_subcommands().front();
    name += (name.empty() ? "" : " ") + a->get_name();
  }
  return name.empty() ? "kvscope-cli" : name;
}

// After CLI11's "arguments were not expected": for each unknown --option, the subcommand's option
// it most likely meant (--budjet → --budget).
void suggest_options(const CLI::App& app) {
  const CLI::App* command = &app;
  while (!command->get_subcommands().empty()) command = command->get_subcommands().front();
  std::vector<std::string> names;
  for (const CLI::Option* option : command->get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
  }
  for (const auto& extra : command->remaining()) {
    if (!extra.starts_with("--")) continue;
    const std::string typed = extra.substr(0, extra.find('='));
    if (const auto name = kvscope::closest_name(typed, names)) {
      kvscope::cli::print_error(typed + ": did you mean '" + *name + "'?");
    }
  }
}

// A first word that names no command: CLI11 says only "A subcommand is required". Returns
// whether it printed "unknown command 'frobnicate'" with the commands there are.
bool report_unknown_command(const CLI::App& app) {
  if (!app.get_subcommands().empty()) return false;
  const auto rest = app.remaining();
  if (rest.empty() || rest.front().starts_with("-")) return false;
  std::vector<std::string> names;
  std::string list;
  for (const CLI::App* command : app.get_subcommands({})) {
    if (command->get_group().empty()) continue;  // hidden
    names.push_back(command->get_name());
    list += (list.empty() ? "" : ", ") + command->get_name();
  }
  kvscope::cli::print_error("unknown command " + kvscope::quote_for_message(rest.front()) +
                            kvscope::did_you_mean(rest.front(), names) + "; the commands are " + list +
                            " (kvscope-cli --help tells more)");
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kvscope::cli;
  CLI::App app{"kvscope-cli — run a paged, quantized LLM KV cache under a request load, headless.\n"
               "Exit status: 0 success, 1 runtime failure, 2 bad usage or bad input."};
  app.name("kvscope-cli");
  app.set_version_flag("--version", std::string("kvscope-cli ") + kvscope::version_string);
  app.require_subcommand(1);
  remove_temporaries_on_fatal_signals();

  int exit_code = exit_ok;
  add_policy_command(app, exit_code);
  add_validate_command(app, exit_code);
  add_info_command(app, exit_code);
  add_record_command(app, exit_code);
  add_simulate_command(app, exit_code);
  add_replay_command(app, exit_code);
  add_vllm_bench_commands(app, exit_code);
  add_fidelity_command(app, exit_code);
  add_sweep_command(app, exit_code);
  add_pareto_command(app, exit_code);
  add_tune_command(app, exit_code);
  add_bench_command(app, exit_code);
  add_tour_command(app, exit_code);
  add_man_command(app, exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    app.exit(e);
    suggest_options(app);
    return exit_bad_input;
  } catch (const CLI::RequiredError& e) {
    if (!report_unknown_command(app)) app.exit(e);
    return exit_bad_input;
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_bad_input;
  } catch (const std::bad_alloc&) {
    // Anywhere in a command: the run's memory (a huge budget, a pathological load) did not fit.
    print_error("out of memory while running '" + command_name(app) + "'" + out_of_memory_hint);
    return exit_runtime_failure;
  } catch (const std::exception& e) {
    print_error(e.what());
    return exit_runtime_failure;
  }
  return exit_code;
}
