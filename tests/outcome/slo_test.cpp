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

}  // namespace
}  // namespace kvscope
