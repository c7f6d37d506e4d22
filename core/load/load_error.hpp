#pragma once
// The one exception the load readers throw (boundary code: files and the CLI catch it).
#include <stdexcept>
#include <string>

namespace kvscope {

enum class load_error_kind {
  bad_input,   // the load itself is wrong: bad spec, bad row, unknown format, missing file
  io_failure,  // the system failed us: read or write error, disk full
};

class load_error : public std::runtime_error {
 public:
  // `message` is complete and user-facing, e.g. "trace.csv:12: column 'ContextTokens': empty".
  // `bad_row`: one data row is wrong, so skipping bad rows would get past it.
  load_error(load_error_kind kind, const std::string& message, bool bad_row = false)
      : std::runtime_error(message), kind_(kind), bad_row_(bad_row) {}
  load_error_kind kind() const noexcept { return kind_; }
  bool is_bad_row() const noexcept { return bad_row_; }

 private:
  load_error_kind kind_;
  bool bad_row_;
};

}  // namespace kvscope
