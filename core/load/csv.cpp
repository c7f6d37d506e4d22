#include "load/csv.hpp"

#include <cstring>

#include "util/trim.hpp"

namespace kvscope {
namespace {

char lower(char c) noexcept { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

bool split_csv(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  std::size_t pos = 0;
  for (;;) {
    // Skip leading blanks to see whether the field is quoted.
    std::size_t start = pos;
    while (start < line.size() && (line[start] == ' ' || line[start] == '\t')) ++start;
    if (start < line.size() && line[start] == '"') {
      std::size_t i = start + 1;
      for (;;) {
        const void* q = i < line.size() ? std::memchr(line.data() + i, '"', line.size() - i) : nullptr;
        if (!q) return false;
        i = static_cast<std::size_t>(static_cast<const char*>(q) - line.data());
        if (i + 1 < line.size() && line[i + 1] == '"') {
          i += 2;  // a doubled quote inside the field
          continue;
        }
        break;
      }
      fields.push_back(line.substr(start + 1, i - start - 1));
      // Only blanks may follow the closing quote: text there would otherwise be lost, and a
      // file whose cells do not read back as written is malformed, not a field to guess at.
      std::size_t after = i + 1;
      while (after < line.size() && (line[after] == ' ' || line[after] == '\t')) ++after;
      if (after == line.size()) return true;
      if (line[after] != ',') return false;
      pos = after + 1;
      continue;
    }
    const void* c = pos < line.size() ? std::memchr(line.data() + pos, ',', line.size() - pos) : nullptr;
    if (!c) {
      fields.push_back(trim(line.substr(pos)));
      return true;
    }
    const auto comma = static_cast<std::size_t>(static_cast<const char*>(c) - line.data());
    fields.push_back(trim(line.substr(pos, comma - pos)));
    pos = comma + 1;
  }
}

void append_csv_cell(std::string& out, std::string_view text) {
  const bool blank_at_end = !text.empty() && (text.front() == ' ' || text.front() == '\t' ||
                                              text.back() == ' ' || text.back() == '\t');
  if (!blank_at_end && text.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += text;
    return;
  }
  out += '"';
  for (const char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string csv_cell(std::string_view text) {
  std::string out;
  append_csv_cell(out, text);
  return out;
}

std::optional<std::size_t> find_column(const std::vector<std::string_view>& header,
                                       std::string_view name) noexcept {
  for (std::size_t i = 0; i < header.size(); ++i) {
    const std::string_view h = header[i];
    if (h.size() != name.size()) continue;
    bool same = true;
    for (std::size_t j = 0; j < h.size() && same; ++j) same = lower(h[j]) == lower(name[j]);
    if (same) return i;
  }
  return std::nullopt;
}

}  // namespace kvscope
