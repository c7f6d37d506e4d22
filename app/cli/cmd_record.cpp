// `kvscope-cli record`: placeholder until its issue lands; it says so and fails.
#include <CLI/CLI.hpp>

#include "cli_support.hpp"
#include "commands.hpp"

namespace kvscope::cli {

void add_record_command(CLI::App& root, int& exit_code) {
  auto* cmd = root.add_subcommand("record", "(not available yet in this build)");
  cmd->allow_extras();
  cmd->callback([&exit_code] {
    print_error("'record' is not available yet in this build");
    exit_code = exit_runtime_failure;
  });
}

}  // namespace kvscope::cli
