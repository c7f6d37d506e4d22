// Hand-parsed civil timestamps of the Azure traces, both the 2023 and the 2024 forms.
#include <gtest/gtest.h>

#include "load/timestamp.hpp"

namespace kvscope {
namespace {

constexpr std::int64_t ns_per_s = 1000000000;

TEST(Timestamp, DaysFromCivil) {
  static_assert(days_from_civil(1970, 1, 1) == 0);
  static_assert(days_from_civil(1969, 12, 31) == -1);
  static_assert(days_from_civil(2000, 3, 1) == 11017);
  static_assert(days_from_civil(2024, 2, 29) == 19782);
  static_assert(days_from_civil(2024, 3, 1) == 19783);
  EXPECT_EQ(days_from_civil(2023, 11, 16), 19677);
}

TEST(Timestamp, Azure2023SevenFractionDigitsAreExact) {
  const auto t = parse_timestamp_ns("2023-11-16 18:15:46.6805900");
  ASSERT_TRUE(t);
  EXPECT_EQ(*t, (19677LL * 86400 + 18 * 3600 + 15 * 60 + 46) * ns_per_s + 680590000);
}

TEST(Timestamp, Azure2024WithZoneAndOptionalFraction) {
  const std::int64_t midnight = 19855LL * 86400 * ns_per_s;  // 2024-05-12
  EXPECT_EQ(parse_timestamp_ns("2024-05-12 00:00:00+00:00"), midnight);
  EXPECT_EQ(parse_timestamp_ns("2024-05-12 00:00:00.009930+00:00"), midnight + 9930000);
  EXPECT_EQ(parse_timestamp_ns("2024-05-12 00:00:00.5"), midnight + ns_per_s / 2);
  EXPECT_EQ(parse_timestamp_ns("2024-05-12T00:00:00Z"), midnight);
  EXPECT_EQ(parse_timestamp_ns("2024-05-12 05:30:00+05:30"), midnight);
  EXPECT_EQ(parse_timestamp_ns("2024-05-11 22:00:00-0200"), midnight);
  EXPECT_EQ(parse_timestamp_ns("2024-05-12 00:00:00.123456789123"), midnight + 123456789);
}

TEST(Timestamp, RejectsMalformedAndImpossible) {
  for (const char* bad :
       {"", "2024-05-12", "2024-05-12 00:00", "2024/05/12 00:00:00", "2024-13-01 00:00:00",
        "2023-02-29 00:00:00", "2024-04-31 00:00:00", "2024-05-12 24:00:00", "2024-05-12 00:60:00",
        "2024-05-12 00:00:00.", "2024-05-12 00:00:00x", "2024-05-12 00:00:00+0", "2024-05-12 00:00:00+00:000",
        "2024-05-12 00:00:00+25:00", "2024-05-12 00:00:00Z0", "2024-0a-12 00:00:00", "1.5", "abc",
        "1969-12-31 23:59:59", "2201-01-01 00:00:00", "6129-05-12 00:00:00+00:00"}) {
    EXPECT_FALSE(parse_timestamp_ns(bad)) << bad;
  }
  EXPECT_TRUE(parse_timestamp_ns("2024-02-29 00:00:00"));
}

}  // namespace
}  // namespace kvscope
