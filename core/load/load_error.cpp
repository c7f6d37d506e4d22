#include "load/load_error.hpp"

#include <cstdio>

namespace kvscope {

std::string quote_for_message(std::string_view text) {
  constexpr std::size_t max_shown = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < max_shown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\'') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  out += text.size() > max_shown ? "'..." : "'";
  return out;
}

}  // namespace kvscope
