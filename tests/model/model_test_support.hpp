#pragma once
// Helpers the model tests share: break one line of a good file, expect a parse to fail.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace kvscope::test {

// `text` with its first `from` replaced by `to`; fails the test when `from` is not there.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// The error of `parse(text, source)`, failing the test when it parses.
template <class Parse>
std::string parse_error(Parse parse, const std::string& text, std::string_view source) {
  const auto result = parse(text, source);
  EXPECT_FALSE(result.has_value()) << text;
  return result ? std::string() : result.error();
}

}  // namespace kvscope::test
