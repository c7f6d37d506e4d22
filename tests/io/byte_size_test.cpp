#include <gtest/gtest.h>

#include "util/byte_size.hpp"

namespace kvscope {
namespace {

TEST(ByteSize, ParsesUnitsAsPeopleWriteThem) {
  EXPECT_EQ(parse_byte_size("16GiB"), 17179869184ull);
  EXPECT_EQ(parse_byte_size("512MiB"), 536870912ull);
  EXPECT_EQ(parse_byte_size("64 MiB"), 67108864ull);
  EXPECT_EQ(parse_byte_size("4096"), 4096ull);
  EXPECT_EQ(parse_byte_size("1.5GB"), 1500000000ull);
  EXPECT_EQ(parse_byte_size("2g"), 2147483648ull);
  EXPECT_EQ(parse_byte_size("10 kb"), 10000ull);
  EXPECT_EQ(parse_byte_size("7B"), 7ull);
}

TEST(ByteSize, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "GiB", "-1GiB", "12 parsecs", "1e30TB", "nan", "1GiBx"}) {
    EXPECT_FALSE(parse_byte_size(bad).has_value()) << bad;
  }
}

TEST(ByteSize, Formats) {
  EXPECT_EQ(format_byte_size(512), "512 B");
  EXPECT_EQ(format_byte_size(17179869184ull), "16 GiB");
  EXPECT_EQ(format_byte_size(1572864), "1.50 MiB");
}

}  // namespace
}  // namespace kvscope
