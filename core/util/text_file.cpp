#include "util/text_file.hpp"

#include <fstream>
#include <iterator>

namespace kvscope {

expected<std::string, std::string> read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return unexpected{path.string() + ": cannot open file"};
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return unexpected{path.string() + ": read failed"};
  return text;
}

}  // namespace kvscope
