// `kvscope-cli tour [--script FILE]`: a guided tour as text — each step's number, narration and
// the state of the engine in numbers (docs/tour.md). The built-in tour without --script.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>

#include "cli_support.hpp"
#include "commands.hpp"
#include "tour/tour_run.hpp"
#include "tour/tour_text.hpp"

namespace kvscope::cli {
namespace {

int run_tour_command(const std::string& script_path) {
  auto script = script_path.empty() ? expected<tour_script, std::string>(builtin_tour())
                                    : read_tour_script(script_path);
  if (!script) {
    print_error(script.error());
    return exit_bad_input;
  }
  auto run = run_tour(*script);
  if (!run) {
    print_error(run.error());
    return exit_bad_input;
  }
  std::fputs(format_tour_text(*run).c_str(), stdout);
  return stdout_exit_status();
}

}  // namespace

void add_tour_command(CLI::App& root, int& exit_code) {
  auto script = std::make_shared<std::string>();
  auto* cmd = root.add_subcommand(
      "tour", "Print a guided tour of the KV cache step by step: narration and the engine's state in "
              "numbers (the built-in tour, or a scenario script: docs/tour.md)");
  cmd->add_option("--script", *script, "A tour script (JSON); the built-in tour without it");
  cmd->callback([script, &exit_code] { exit_code = run_tour_command(*script); });
}

}  // namespace kvscope::cli
