#include <gtest/gtest.h>

#include "sweep/decimal_range.hpp"

namespace kvscope {
namespace {

std::vector<std::string> values(std::string_view text) {
  auto v = expand_range(text);
  EXPECT_TRUE(v) << (v ? "" : v.error());
  return v ? *v : std::vector<std::string>{};
}

// The example: ten values, the last exactly 0.95 (a double loop gives 0.9500000000000001
// or stops at 0.9).
TEST(DecimalRange, ExpandsExactly) {
  EXPECT_EQ(values("0.5:0.95:0.05"),
            (std::vector<std::string>{"0.5", "0.55", "0.6", "0.65", "0.7", "0.75", "0.8", "0.85", "0.9", "0.95"}));
  EXPECT_EQ(values("0.1:0.3:0.1"), (std::vector<std::string>{"0.1", "0.2", "0.3"}));
  EXPECT_EQ(values("1:10:3"), (std::vector<std::string>{"1", "4", "7", "10"}));
  EXPECT_EQ(values("1:9:3"), (std::vector<std::string>{"1", "4", "7"}));  // the last only if landed on
  EXPECT_EQ(values("0.3:0.1:-0.1"), (std::vector<std::string>{"0.3", "0.2", "0.1"}));
  EXPECT_EQ(values("-0.1:0.1:0.1"), (std::vector<std::string>{"-0.1", "0", "0.1"}));
  EXPECT_EQ(values("0.5:0.5:0.1"), (std::vector<std::string>{"0.5"}));
  EXPECT_EQ(values(".25:1:.25"), (std::vector<std::string>{"0.25", "0.5", "0.75", "1"}));
  EXPECT_EQ(values("0.001:0.003:0.001"), (std::vector<std::string>{"0.001", "0.002", "0.003"}));
}

TEST(DecimalRange, KeepsAUnit) {
  EXPECT_EQ(values("8MiB:32MiB:8MiB"), (std::vector<std::string>{"8MiB", "16MiB", "24MiB", "32MiB"}));
  EXPECT_EQ(values("8MiB:32MiB:8"), (std::vector<std::string>{"8MiB", "16MiB", "24MiB", "32MiB"}));
}

TEST(DecimalRange, RefusesWhatIsNotARange) {
  for (const char* bad : {"0.5:0.9:0", "0.5:0.9", "0.9:0.5:0.1", "0.5:0.9:x", "a:b:c", "8MiB:1GiB:1MiB",
                          "0.5:0.9:0.1GiB", "1:2000000:1", "0.1234567890123456:1:1"}) {
    auto v = expand_range(bad);
    EXPECT_FALSE(v) << bad;
    if (!v) {
      EXPECT_NE(v.error().find(std::string("'") + bad + "'"), std::string::npos) << v.error();
    }
  }
}

TEST(DecimalRange, TellsRangesFromOtherValues) {
  EXPECT_TRUE(looks_like_range("0.5:0.95:0.05"));
  EXPECT_TRUE(looks_like_range("8MiB:32MiB:8MiB"));
  EXPECT_FALSE(looks_like_range("0.6"));
  EXPECT_FALSE(looks_like_range("configs/a.json"));
  EXPECT_FALSE(looks_like_range("c:/x:y"));
  EXPECT_FALSE(looks_like_range("ttft=0.5"));
}

}  // namespace
}  // namespace kvscope
