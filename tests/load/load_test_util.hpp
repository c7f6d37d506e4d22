#pragma once
// Shortcuts for the load tests: read a tests/data file or an in-memory text as a load.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "load/load_error.hpp"
#include "load/open_load.hpp"
#include "process.hpp"

namespace kvscope::test {

inline std::vector<request> read_data_file(const std::string& name,
                                           load_format format = load_format::automatic) {
  auto source = open_load(data_path(name), format, read_options{});
  return read_all(*source);
}

inline std::vector<request> read_text(const std::string& text, load_format format,
                                      read_options options = {}) {
  auto source = open_load_text("t.csv", text, format, options);
  return read_all(*source);
}

// The message of the load_error reading `text` throws ("" when it reads fine).
inline std::string error_reading(const std::string& text, load_format format = load_format::automatic,
                                 read_options options = {}) {
  try {
    auto source = open_load_text("t.csv", text, format, options);
    read_all(*source);
  } catch (const load_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace kvscope::test
