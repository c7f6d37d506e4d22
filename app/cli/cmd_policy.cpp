// `kvscope-cli policy`: feed pressures through the controller, one output line per observation.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include <fast_float/fast_float.h>

#include "cli_support.hpp"
#include "commands.hpp"
#include "io/policy_file.hpp"
#include "policy/policy_controller.hpp"
#include "util/quote_text.hpp"
#include "util/trim.hpp"

namespace kvscope::cli {
namespace {

struct policy_options {
  std::string config_path;
  std::string preset;
  std::string input_path;
};


// A line without blanks at either end, CR included.
std::string_view trim_line(std::string_view s) { return trim(s, " \t\r"); }

int run_policy(const policy_options& opt) {
  policy_config config;
  if (!opt.config_path.empty()) {
    auto loaded = read_policy_config(opt.config_path);
    if (!loaded) {
      print_error(loaded.error());
      return exit_bad_input;
    }
    config = *loaded;
    if (config.family != policy_family::ewma) {
      print_error(opt.config_path + ": the " + std::string(family_name(config.family)) +
                  " family has no controller to feed pressures to (only ewma has)");
      return exit_bad_input;
    }
  } else {
    config = *policy_preset(opt.preset);  // CLI11 already checked the name
  }
  policy_controller controller(config);

  std::ifstream file;
  std::istream* in = &std::cin;
  std::string source = "<stdin>";
  if (!opt.input_path.empty() && opt.input_path != "-") {
    std::error_code ec;
    if (std::filesystem::is_directory(opt.input_path, ec)) {
      print_error(opt.input_path + ": is a directory, not a file");
      return exit_bad_input;
    }
    file.open(opt.input_path);
    if (!file) {
      print_error(opt.input_path + ": cannot open file");
      return exit_bad_input;
    }
    in = &file;
    source = opt.input_path;
  }

  std::string line;
  long line_no = 0;
  while (std::getline(*in, line)) {
    ++line_no;
    const std::string_view text = trim_line(line);
    if (text.empty() || text.front() == '#') continue;  // blank lines and comments carry nothing
    double pressure = 0;
    const auto [end, ec] = fast_float::from_chars(text.data(), text.data() + text.size(), pressure);
    if (ec != std::errc{} || end != text.data() + text.size()) {
      std::fflush(stdout);
      std::cerr << source << ":" << line_no << ": not a number: " << quote_for_message(text) << "\n";
      return exit_bad_input;
    }
    const auto level = controller.observe(pressure);
    if (!level) {
      std::fflush(stdout);
      std::cerr << source << ":" << line_no << ": pressure is not finite: " << quote_for_message(text) << "\n";
      return exit_bad_input;
    }
    std::printf("%s %.12f\n", std::string(tag(*level)).c_str(), controller.ewma());
  }
  if (in->bad()) {
    print_error(source + ": read failed");
    return exit_runtime_failure;
  }
  return stdout_exit_status();
}

}  // namespace

void add_policy_command(CLI::App& root, int& exit_code) {
  auto opt = std::make_shared<policy_options>();
  auto* cmd = root.add_subcommand(
      "policy",
      "Run the pressure policy on a series of pressures (one number per line, file or stdin) and "
      "print '<level> <ewma>' per observation. Blank lines and lines starting with # are skipped.");
  auto* config = cmd->add_option("--config", opt->config_path, "Policy config file (.json or .toml)")
                     ->check(CLI::ExistingFile);
  std::vector<std::string> presets;
  for (auto name : policy_preset_names()) presets.emplace_back(name);
  auto* preset = cmd->add_option("--preset", opt->preset, "Built-in policy preset")
                     ->check(CLI::IsMember(presets));
  config->excludes(preset);
  preset->excludes(config);
  cmd->add_option("--input", opt->input_path, "File of pressures, one per line (default: stdin)");
  cmd->callback([opt, cmd, &exit_code] {
    if (opt->config_path.empty() && opt->preset.empty()) {
      throw CLI::RequiredError("one of --config or --preset");
    }
    (void)cmd;
    exit_code = run_policy(*opt);
  });
}

}  // namespace kvscope::cli
