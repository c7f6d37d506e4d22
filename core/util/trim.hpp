#pragma once
// `s` without the blanks at either end: spaces and tabs, or the characters given.
#include <string_view>

namespace kvscope {

constexpr std::string_view trim(std::string_view s, std::string_view blanks = " \t") noexcept {
  const auto first = s.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(blanks) - first + 1);
}

}  // namespace kvscope
