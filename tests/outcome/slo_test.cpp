// --slo parsing: what is accepted and the exact words of each refusal.
#include <gtest/gtest.h>

#include "outcome/slo.hpp"

namespace kvscope {
namespace {

std::string error_of(std::string_view text) {
  const auto r = parse_slo(text);
  return r ? std::string("(accepted)") : r.error();
}

TEST(ParseSlo, AllThreeKeys) {
  const auto r = parse_slo("ttft=0.5,tpot=0.05,e2e=10");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->ttft_s, 0.5);
  EXPECT_EQ(r->tpot_s, 0.05);
  EXPECT_EQ(r->e2e_s, 10.0);
}

TEST(ParseSlo, AnySubsetInAnyOrderWithSpaces) {
  const auto r = parse_slo(" e2e = 2.5 , ttft=1e-1");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->ttft_s, 0.1);
  EXPECT_FALSE(r->tpot_s.has_value());
  EXPECT_EQ(r->e2e_s, 2.5);
  EXPECT_FALSE(r->empty());
  EXPECT_TRUE(slo_spec{}.empty());
}

TEST(ParseSlo, UnknownKeyListsTheKnownOnes) {
  EXPECT_EQ(error_of("foo=1"), "slo: unknown key 'foo' (ttft, tpot, e2e)");
  // vLLM's --goodput says e2el (in ms); ours is e2e in seconds.
  EXPECT_EQ(error_of("ttft=1,e2el=5"), "slo: unknown key 'e2el' (ttft, tpot, e2e)");
}

TEST(ParseSlo, OnlyPositiveFiniteSeconds) {
  EXPECT_EQ(error_of("ttft=-1"), "slo: 'ttft=-1': expected a positive number of seconds");
  EXPECT_EQ(error_of("tpot=0"), "slo: 'tpot=0': expected a positive number of seconds");
  EXPECT_EQ(error_of("e2e=inf"), "slo: 'e2e=inf': expected a positive number of seconds");
  EXPECT_EQ(error_of("e2e=nan"), "slo: 'e2e=nan': expected a positive number of seconds");
  EXPECT_EQ(error_of("e2e=1e999"), "slo: 'e2e=1e999': expected a positive number of seconds");
  EXPECT_EQ(error_of("ttft=0.5s"), "slo: 'ttft=0.5s': expected a positive number of seconds");
  EXPECT_EQ(error_of("ttft="), "slo: 'ttft=': expected a positive number of seconds");
}

TEST(ParseSlo, DuplicatesAndMalformedItemsAreRefused) {
  EXPECT_EQ(error_of("ttft=1,tpot=0.1,ttft=2"), "slo: 'ttft' given twice");
  EXPECT_EQ(error_of("ttft"), "slo: 'ttft': expected key=seconds");
  EXPECT_EQ(error_of("ttft=1,"), "slo: empty item; expected key=seconds separated by commas");
  EXPECT_EQ(error_of(""), "slo: empty; expected e.g. ttft=0.5,tpot=0.05,e2e=10");
}

// Limits typed in milliseconds (ttft=1000) parse as seconds and would pass every request: past
// 600 s for a whole request or 10 s for one token they are warned about, with the value in
// seconds; plausible limits are not.
TEST(SloUnits, LimitsThatLookLikeMillisecondsAreWarnedAbout) {
  const auto ms = parse_slo("ttft=1000,tpot=50,e2e=20000");
  ASSERT_TRUE(ms) << ms.error();
  const auto warnings = slo_unit_warnings(*ms);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[0],
            "slo: 'ttft=1000': 1000 s is more than 600 s, implausible for a time to first token; limits are in "
            "seconds; if it is in milliseconds, write ttft=1");
  EXPECT_EQ(warnings[1],
            "slo: 'tpot=50': 50 s is more than 10 s, implausible for a time per output token; limits are in "
            "seconds; if it is in milliseconds, write tpot=0.05");
  EXPECT_NE(warnings[2].find("write e2e=20"), std::string::npos) << warnings[2];
  EXPECT_TRUE(slo_unit_warnings(*parse_slo("ttft=600,tpot=10,e2e=600")).empty());
  EXPECT_TRUE(slo_unit_warnings(*parse_slo("ttft=0.5,tpot=0.05")).empty());
  EXPECT_TRUE(implausible_latency_limit("itl", 11).has_value());
  EXPECT_FALSE(implausible_latency_limit("queue", 1e6).has_value());  // no rule for it
}

}  // namespace
}  // namespace kvscope
