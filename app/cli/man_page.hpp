#pragma once
// A program's command tree as plain values, and the two texts made from it: a troff manual page
// (man(7) macros) and a bash completion script. kvscope-cli fills it from its CLI11 tree.
#include <string>
#include <vector>

namespace kvscope::cli {

struct man_option {
  std::vector<std::string> names;  // "--load", "-h"; a positional's name alone
  std::string value;               // the value's type ("TEXT"), empty for a flag
  std::string help;
};

struct man_command {
  std::string path;  // "simulate", "bench engine"
  std::string description;
  std::vector<man_option> options;
  bool has_subcommands = false;
};

struct man_program {
  std::string name, version;
  std::string description;  // first line "NAME — summary", then more paragraphs
  std::vector<man_option> options;    // of the program itself (--help, --version)
  std::vector<man_command> commands;  // depth first, parents before their subcommands
};

// The program a QCommandLineParser --help text describes (the GUI's): its description and every
// entry of "Options:" and "Arguments:", wrapped lines joined.
man_program parse_qt_help(const std::string& help, const std::string& name, const std::string& version);

// The manual page: NAME, SYNOPSIS, DESCRIPTION, OPTIONS, COMMANDS (one subsection each).
std::string man_page_troff(const man_program& p);
// A bash completion: subcommand names, then each command's options; file names otherwise.
std::string bash_completion(const man_program& p);

}  // namespace kvscope::cli
