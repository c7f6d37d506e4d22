#include "cli_support.hpp"

#include "commands.hpp"

#include <unistd.h>

#include <iostream>

namespace kvscope::cli {

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

void print_error(std::string_view message) {
  std::cerr << "kvscope-cli: " << message << '\n';
}

void print_warning(std::string_view message) {
  std::cerr << "kvscope-cli: warning: " << message << '\n';
}

int stdout_exit_status() {
  const bool flushed = std::fflush(stdout) == 0;
  return flushed && !std::ferror(stdout) ? exit_ok : exit_runtime_failure;
}

}  // namespace kvscope::cli
