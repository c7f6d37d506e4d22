#include "util/quote_text.hpp"

#include <cstdio>

namespace kvscope {

std::string quote_for_message(std::string_view text, std::size_t max_shown) {
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
  if (text.size() <= max_shown) return out + "'";
  return out + "...' (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace kvscope
