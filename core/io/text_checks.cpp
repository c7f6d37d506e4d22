#include "io/text_checks.hpp"

#include <cstdint>
#include <cstdio>

namespace kvscope {
namespace {

constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";

// Decodes the UTF-8 sequence at text[pos]; returns its length (0 when it is not one: a stray
// continuation byte, an overlong form, a surrogate, past U+10FFFF or cut short).
std::size_t decode_utf8(std::string_view text, std::size_t pos, char32_t& out) noexcept {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  std::size_t length = 0;
  if (lead >= 0xC0 && lead < 0xE0) {
    length = 2;
  } else if (lead >= 0xE0 && lead < 0xF0) {
    length = 3;
  } else if (lead >= 0xF0 && lead < 0xF5) {
    length = 4;
  } else {
    return 0;
  }
  constexpr char32_t min_for_length[] = {0, 0, 0x80, 0x800, 0x10000};  // shorter forms are overlong
  const char32_t min = min_for_length[length];
  out = lead & (0x7Fu >> length);
  if (text.size() - pos < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(pos + i) & 0xC0u) != 0x80u) return 0;
    out = (out << 6) | (byte(pos + i) & 0x3Fu);
  }
  if (out < min || out > 0x10FFFF || (out >= 0xD800 && out <= 0xDFFF)) return 0;
  return length;
}

}  // namespace

std::string_view strip_utf8_bom(std::string_view text) noexcept {
  if (text.starts_with(utf8_bom)) text.remove_prefix(utf8_bom.size());
  return text;
}

expected<void, std::string> check_policy_ascii(std::string_view text, std::string_view source) {
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      line_start = i + 1;
      continue;
    }
    if ((c >= 0x20 && c <= 0x7E) || c == '\t' || c == '\r') continue;
    char what[96];
    std::snprintf(what, sizeof what, ":%zu:%zu: byte 0x%02X: ", line, i - line_start + 1,
                  static_cast<unsigned>(c));
    return unexpected{std::string(source) + what +
                      "policy files are ASCII; write non-ASCII as \\uXXXX"};
  }
  return {};
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      out += text[i++];
      continue;
    }
    char32_t cp = 0;
    const std::size_t length = decode_utf8(text, i, cp);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string toml_ascii_string(std::string_view text) {
  std::string out = "\"";
  char buf[16];
  for (std::size_t i = 0; i < text.size();) {
    const char ch = text[i];
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
      ++i;
    } else if (c < 0x20 || c == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(c));
      out += buf;
      ++i;
    } else if (c < 0x80) {
      out += ch;
      ++i;
    } else {
      char32_t cp = 0;
      const std::size_t length = decode_utf8(text, i, cp);
      if (length == 0) cp = 0xFFFD;
      if (cp > 0xFFFF) {
        std::snprintf(buf, sizeof buf, "\\U%08X", static_cast<unsigned>(cp));
      } else {
        std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(cp));
      }
      out += buf;
      i += length == 0 ? 1 : length;
    }
  }
  return out + "\"";
}

}  // namespace kvscope
