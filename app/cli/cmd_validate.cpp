// `kvscope-cli validate FILE`: check a policy config file the way the runtime will load it.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <string>

#include "cli_support.hpp"
#include "commands.hpp"
#include "io/policy_file.hpp"

namespace kvscope::cli {

void add_validate_command(CLI::App& root, int& exit_code) {
  auto path = std::make_shared<std::string>();
  auto* cmd = root.add_subcommand("validate", "Check a policy config file (JSON or TOML)");
  cmd->add_option("FILE", *path, "Policy config file")->required();
  cmd->callback([path, &exit_code] {
    auto config = read_policy_config(*path);
    if (!config) {
      std::cerr << config.error() << '\n';
      exit_code = exit_bad_input;
      return;
    }
    std::cout << *path << ": valid policy: " << describe(*config) << '\n';
    if (reaches_q3(*config)) std::cout << *path << ": note: " << q3_export_note << '\n';
    exit_code = exit_ok;
  });
}

}  // namespace kvscope::cli
