// kvscope-cli: run the kvscope engine without a display — for scripts, sweeps and CI.
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "kvscope_version.hpp"

int main(int argc, char** argv) {
  using namespace kvscope::cli;
  CLI::App app{"kvscope-cli — run a paged, quantized LLM KV cache under a request load, headless.\n"
               "Exit status: 0 success, 1 runtime failure, 2 bad usage or bad input."};
  app.name("kvscope-cli");
  app.set_version_flag("--version", std::string("kvscope-cli ") + kvscope::version_string);
  app.require_subcommand(1);

  int exit_code = exit_ok;
  add_policy_command(app, exit_code);
  add_validate_command(app, exit_code);
  add_info_command(app, exit_code);
  add_record_command(app, exit_code);
  add_simulate_command(app, exit_code);
  add_replay_command(app, exit_code);
  add_vllm_bench_commands(app, exit_code);
  add_sweep_command(app, exit_code);
  add_pareto_command(app, exit_code);
  add_tune_command(app, exit_code);
  add_bench_command(app, exit_code);
  add_tour_command(app, exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_bad_input;
  } catch (const std::exception& e) {
    print_error(e.what());
    return exit_runtime_failure;
  }
  return exit_code;
}
