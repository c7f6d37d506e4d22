#include "cli_support.hpp"

#include <unistd.h>

#include <iostream>

namespace kvscope::cli {

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

void print_error(std::string_view message) {
  std::cerr << "kvscope-cli: " << message << '\n';
}

}  // namespace kvscope::cli
