// `kvscope-cli info`: placeholder until its issue lands; it says so and fails.
#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "commands.hpp"

namespace kvscope::cli {

void add_info_command(CLI::App& root, int& exit_code) {
  auto* cmd = root.add_subcommand("info", "(not available yet in this build)");
  cmd->allow_extras();
  cmd->callback([&exit_code] {
    print_error("'info' is not available yet in this build");
    exit_code = exit_runtime_failure;
  });
}

}  // namespace kvscope::cli
