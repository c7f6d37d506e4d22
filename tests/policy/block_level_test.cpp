// The level each family gives each block, on the cases docs/policy.md works by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "policy/block_level.hpp"

namespace kvscope {
namespace {

// Levels of blocks 0..count-1 as tags, "fp16 q8 ...", for readable failures.
std::string levels(const policy_config& p, precision controller, const sequence_extent& e,
                   std::uint32_t count) {
  std::string out;
  for (std::uint32_t b = 0; b < count; ++b) {
    out += (b ? " " : "") + std::string(tag(block_level(p, controller, e, b)));
  }
  return out;
}

// L = 200 tokens in blocks of 16 (13 blocks, the last partial), hot tail 32: blocks 0..9 are
// cold ((b+1)·16 + 32 <= 200 for b <= 9).
constexpr sequence_extent extent{200, 16, 32};

TEST(BlockLevel, EwmaPutsEveryColdBlockAtTheControllerLevel) {
  const policy_config p;
  EXPECT_EQ(levels(p, precision::q4, extent, 13), "q4 q4 q4 q4 q4 q4 q4 q4 q4 q4 fp16 fp16 fp16");
  EXPECT_EQ(levels(p, precision::fp16, extent, 13), "fp16 fp16 fp16 fp16 fp16 fp16 fp16 fp16 fp16 fp16 fp16 fp16 fp16");
  const auto spans = cold_spans(p, precision::q8, extent);
  ASSERT_EQ(spans.count, 1u);
  EXPECT_EQ(spans.span[0].begin, 0u);
  EXPECT_EQ(spans.span[0].end, 10u);
}

TEST(BlockLevel, StaticPutsEveryColdBlockAtItsLevel) {
  policy_config p;
  p.family = policy_family::fixed;
  p.fixed_level = precision::fp8;
  // The controller's level plays no part.
  EXPECT_EQ(levels(p, precision::q4, extent, 13), "fp8 fp8 fp8 fp8 fp8 fp8 fp8 fp8 fp8 fp8 fp16 fp16 fp16");
}

TEST(BlockLevel, AgeGoesToQ8ThenQ4) {
  policy_config p;
  p.family = policy_family::age;
  p.q8_age_tokens = 64;
  p.q4_age_tokens = 128;
  // Ages 184 168 152 136 | 120 104 88 72 | 56 40 24 8 -8.
  EXPECT_EQ(levels(p, precision::fp16, extent, 13), "q4 q4 q4 q4 q8 q8 q8 q8 fp16 fp16 fp16 fp16 fp16");
  // Exactly N old is q8, one token younger is not: L = 208 makes block 8 exactly 64 old.
  EXPECT_EQ(block_level(p, precision::fp16, {208, 16, 32}, 8), precision::q8);
  EXPECT_EQ(block_level(p, precision::fp16, {207, 16, 32}, 8), precision::fp16);
  // The hot tail wins over a shorter N: with N = 0 only the cold blocks (0..9) compress.
  p.q8_age_tokens = 0;
  EXPECT_EQ(levels(p, precision::fp16, extent, 13), "q4 q4 q4 q4 q8 q8 q8 q8 q8 q8 fp16 fp16 fp16");
  // N = M: nothing is q8.
  p.q8_age_tokens = 128;
  EXPECT_EQ(levels(p, precision::fp16, extent, 13), "q4 q4 q4 q4 fp16 fp16 fp16 fp16 fp16 fp16 fp16 fp16 fp16");
  // A short sequence has no block old enough.
  EXPECT_EQ(levels(p, precision::fp16, {100, 16, 32}, 7), "fp16 fp16 fp16 fp16 fp16 fp16 fp16");
}

// q3_age_tokens (Q) adds q3 for blocks at least Q old, ahead of q4's span; unset, the spans are
// the two they always were.
TEST(BlockLevel, AgeGoesToQ3WithItsKey) {
  policy_config p;
  p.family = policy_family::age;
  p.q8_age_tokens = 64;
  p.q4_age_tokens = 128;
  EXPECT_EQ(cold_spans(p, precision::fp16, extent).count, 2u);
  p.q3_age_tokens = 160;
  // Ages 184 168 | 152 136 | 120 104 88 72 | 56 40 24 8 -8.
  EXPECT_EQ(levels(p, precision::fp16, extent, 13), "q3 q3 q4 q4 q8 q8 q8 q8 fp16 fp16 fp16 fp16 fp16");
  const auto spans = cold_spans(p, precision::fp16, extent);
  ASSERT_EQ(spans.count, 3u);
  EXPECT_EQ(spans.span[0].level, precision::q3);
  EXPECT_EQ(spans.span[1].begin, spans.span[0].end);
  // Q = M: every block old enough for q4 is q3.
  p.q3_age_tokens = 128;
  EXPECT_EQ(levels(p, precision::fp16, extent, 13), "q3 q3 q3 q3 q8 q8 q8 q8 fp16 fp16 fp16 fp16 fp16");
  policy_config without = p;
  without.q3_age_tokens.reset();
  EXPECT_FALSE(same_block_rule(p, without));
  p.q3_age_tokens = 100;
  EXPECT_EQ(validate(p), "q3_age_tokens must be >= q4_age_tokens");
}

TEST(BlockLevel, SinksAndRecentStayFp16) {
  policy_config p;
  p.family = policy_family::sinks_recent;
  p.sink_tokens = 16;
  p.recent_tokens = 64;
  p.fixed_level = precision::q4;
  // Block 0 holds the sink tokens; blocks 8.. hold one of the last 64 tokens (136..199).
  EXPECT_EQ(levels(p, precision::fp16, extent, 13), "fp16 q4 q4 q4 q4 q4 q4 q4 fp16 fp16 fp16 fp16 fp16");
  // One sink token more reaches into block 1.
  p.sink_tokens = 17;
  EXPECT_EQ(levels(p, precision::fp16, extent, 13), "fp16 fp16 q4 q4 q4 q4 q4 q4 fp16 fp16 fp16 fp16 fp16");
  // No sinks, and R shorter than the tail: the tail decides.
  p.sink_tokens = 0;
  p.recent_tokens = 0;
  EXPECT_EQ(levels(p, precision::fp16, extent, 13), "q4 q4 q4 q4 q4 q4 q4 q4 q4 q4 fp16 fp16 fp16");
  // Sinks past the recent window's start: nothing in between.
  p.sink_tokens = 190;
  const auto spans = cold_spans(p, precision::fp16, extent);
  ASSERT_EQ(spans.count, 1u);
  EXPECT_EQ(spans.span[0].begin, spans.span[0].end);
}

TEST(BlockLevel, SameBlockRuleComparesOnlyWhatTheFamilyUses) {
  policy_config a, b;
  b.q8_threshold = 0.5f;     // a controller field: ewma's blocks follow its level, not this
  b.q8_age_tokens = 1;       // another family's parameter
  EXPECT_TRUE(same_block_rule(a, b));
  b.family = policy_family::age;
  EXPECT_FALSE(same_block_rule(a, b));
  a.family = policy_family::age;
  EXPECT_FALSE(same_block_rule(a, b));
  a.q8_age_tokens = 1;
  EXPECT_TRUE(same_block_rule(a, b));
}

TEST(BlockLevel, ValidationNamesTheField) {
  policy_config p;
  p.family = policy_family::age;
  p.q8_age_tokens = 100;
  p.q4_age_tokens = 99;
  EXPECT_EQ(validate(p), "q4_age_tokens must be >= q8_age_tokens");
  p.family = policy_family::ewma;  // not its parameters: no rule
  EXPECT_EQ(validate(p), std::nullopt);
  p.family = policy_family::age;
  p.q4_threshold = 0.1f;  // the reference's rules come first
  EXPECT_EQ(validate(p), "q4_threshold must be >= q8_threshold");
  policy_config f;
  f.family = policy_family::fixed;
  f.fixed_level = precision::fp16;  // a baseline that never compresses: valid
  EXPECT_EQ(validate(f), std::nullopt);
}

TEST(BlockLevel, FamilyNamesReadBack) {
  for (const auto& name : policy_family_names()) {
    const auto f = parse_policy_family(name);
    ASSERT_TRUE(f.has_value()) << name;
    EXPECT_EQ(family_name(*f), name);
  }
  EXPECT_EQ(parse_policy_family("sinks+recent"), policy_family::sinks_recent);
  EXPECT_EQ(parse_policy_family("Static"), std::nullopt);
  policy_config p;
  EXPECT_EQ(describe(p), "q8_threshold=0.8 q4_threshold=0.95 hysteresis=0.05 ewma_alpha=0.2 levels=fp16..q4");
  p.family = policy_family::age;
  EXPECT_EQ(describe(p), "family=age q8_age_tokens=512 q4_age_tokens=2048");
}

}  // namespace
}  // namespace kvscope
