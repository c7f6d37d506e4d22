// Quoting input in messages: short text as it is, bytes that would garble a terminal escaped,
// long text cut with its size.
#include <gtest/gtest.h>

#include <string>

#include "util/quote_text.hpp"

namespace kvscope {
namespace {

TEST(QuoteForMessage, ShortTextIsQuotedWhole) {
  EXPECT_EQ(quote_for_message("abc"), "'abc'");
  EXPECT_EQ(quote_for_message(""), "''");
  EXPECT_EQ(quote_for_message(std::string(80, 'x')), "'" + std::string(80, 'x') + "'");
}

TEST(QuoteForMessage, ControlNonAsciiAndQuoteBytesAreEscaped) {
  EXPECT_EQ(quote_for_message(std::string("a\0b\r'\xc3\xa9", 7)), "'a\\x00b\\x0d\\x27\\xc3\\xa9'");
}

TEST(QuoteForMessage, LongTextIsCutWithItsSize) {
  const std::string line(30'000'000, '7');
  EXPECT_EQ(quote_for_message(line), "'" + std::string(80, '7') + "...' (30000000 bytes)");
  EXPECT_EQ(quote_for_message("abcdef", 3), "'abc...' (6 bytes)");
}

}  // namespace
}  // namespace kvscope
