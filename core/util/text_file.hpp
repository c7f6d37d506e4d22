#pragma once
// Reading a whole (small) input file: configs, sessions, benchmark results, tour scripts.
// Traces are streamed instead (load/line_reader.hpp).
#include <filesystem>
#include <string>

#include "util/expected.hpp"

namespace kvscope {

// The file's bytes; otherwise "PATH: is a directory, not a file", "PATH: cannot open file" or
// "PATH: read failed".
expected<std::string, std::string> read_text_file(const std::filesystem::path& path);

}  // namespace kvscope
