#include "util/text_file.hpp"

#include <fstream>
#include <iterator>
#include <system_error>

namespace kvscope {

expected<std::string, std::string> read_text_file(const std::filesystem::path& path) {
  // A directory opens as a stream on Linux and fails only on the first read, with an exception
  // from the stream buffer that names no path: refuse it by name first.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return unexpected{path.string() + ": is a directory, not a file"};
  std::ifstream in(path, std::ios::binary);
  if (!in) return unexpected{path.string() + ": cannot open file"};
  try {
    std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) return unexpected{path.string() + ": read failed"};
    return text;
  } catch (const std::ios_base::failure&) {  // libstdc++'s filebuf throws on a failed read
    return unexpected{path.string() + ": read failed"};
  }
}

}  // namespace kvscope
