#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "util/expected.hpp"

namespace kvscope {

// Writes `content` to `path` so that readers see either the old file or the whole new one:
// a temp file in the same directory, fsync, then rename over the target. Returns a message
// naming the path on failure; the target is untouched then.
expected<void, std::string> write_file_atomically(const std::filesystem::path& path,
                                                  std::string_view content);

}  // namespace kvscope
