// `kvscope-cli man cli|completion` (hidden): the manual page and the bash completion, generated
// at build time from the command tree itself (every option of the option table is a CLI11 flag),
// so neither can drift from the program.
#include <CLI/CLI.hpp>

#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "kvscope_version.hpp"
#include "man_page.hpp"
#include "output_checks.hpp"
#include "util/atomic_write.hpp"

namespace kvscope::cli {
namespace {

// Subcommands in the order they were added, hidden ones (this one) left out.
std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const auto* sub : app.get_subcommands([](const CLI::App* a) { return !a->get_group().empty(); })) {
    out.push_back(sub);
  }
  return out;
}

// Every option; --help only for the program itself (every command has it).
std::vector<man_option> options_of(const CLI::App& app, bool with_help) {
  std::vector<man_option> out;
  for (const auto* o : app.get_options()) {
    if (!with_help && o->check_lname("help")) continue;
    man_option m;
    for (const auto& l : o->get_lnames()) m.names.push_back("--" + l);
    for (const auto& s : o->get_snames()) m.names.push_back("-" + s);
    if (m.names.empty()) {
      m.names.push_back(o->get_name());  // a positional: its name is what to type
    } else if (o->get_type_size() != 0 && o->get_expected_min() > 0) {
      m.value = o->get_type_name();
    }
    m.help = o->get_description();
    out.push_back(std::move(m));
  }
  return out;
}

void collect(const CLI::App& app, const std::string& path, std::vector<man_command>& out) {
  for (const auto* sub : visible_subcommands(app)) {
    man_command c;
    c.path = path.empty() ? sub->get_name() : path + " " + sub->get_name();
    c.description = sub->get_description();
    c.options = options_of(*sub, false);
    c.has_subcommands = !visible_subcommands(*sub).empty();
    out.push_back(c);
    collect(*sub, c.path, out);
  }
}

}  // namespace

void add_man_command(CLI::App& root, int& exit_code) {
  struct man_options {
    std::string what, out;
  };
  auto o = std::make_shared<man_options>();
  auto* cmd = root.add_subcommand(
      "man", "Write kvscope-cli's manual page (cli), its bash completion (completion), or kvscope's "
             "manual page from `kvscope --help` on stdin (gui); for the build");
  cmd->group("");  // hidden: not in --help, the manual or the completion
  cmd->add_option("what", o->what, "cli, completion or gui")
      ->required()
      ->check(CLI::IsMember({"cli", "completion", "gui"}));
  cmd->add_option("--out", o->out, "Output file, written atomically")->check(output_file_name())->required();
  cmd->callback([&root, o, &exit_code] {
    std::string text;
    if (o->what == "gui") {
      const std::string help{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
      text = man_page_troff(parse_qt_help(help, "kvscope", version_string));
    } else {
      man_program program;
      program.name = root.get_name();
      program.version = version_string;
      program.description = root.get_description();
      program.options = options_of(root, true);
      collect(root, "", program.commands);
      text = o->what == "cli" ? man_page_troff(program) : bash_completion(program);
    }
    if (auto written = write_file_atomically(o->out, text); !written) {
      print_error(written.error());
      exit_code = exit_runtime_failure;
    }
  });
}

}  // namespace kvscope::cli
