#pragma once
// Small helpers shared by the subcommands.
#include <cstdio>
#include <string>
#include <string_view>

namespace kvscope::cli {

// True when stderr is a terminal: progress lines are printed only then.
bool stderr_is_terminal();

// Prints "kvscope-cli: <message>" to stderr.
void print_error(std::string_view message);
// Prints "kvscope-cli: warning: <message>" to stderr: something looks wrong but the run goes on.
void print_warning(std::string_view message);

// Flushes stdout; exit_ok unless writing it failed at any point (a closed pipe, a full disk),
// then exit_runtime_failure. The last line of a subcommand that printed its result.
int stdout_exit_status();

}  // namespace kvscope::cli
