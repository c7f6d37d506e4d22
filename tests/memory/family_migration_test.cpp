// Migration under a policy family: each block to its own level, shared blocks to the most
// compact level asked, and each level's group all or nothing.
#include <gtest/gtest.h>

#include <string>

#include "memory/paged_cache.hpp"
#include "memory_test_support.hpp"

namespace kvscope {
namespace {

using test::cache_config;

std::string tier_tags(const paged_cache& cache, sequence_id s) {
  std::string out;
  const auto table = *cache.block_table(s);
  for (const block_id b : table) out += (out.empty() ? "" : " ") + std::string(tag(cache.pool().tier(b)));
  return out;
}

policy_config age(std::uint32_t n, std::uint32_t m) {
  policy_config p;
  p.family = policy_family::age;
  p.q8_age_tokens = n;
  p.q4_age_tokens = m;
  return p;
}

// Hot tail 32. a: 160 tokens, ages 144 128 112 96 | 80 64 48 32 | 16 0. b: shares a's block 0,
// 64 tokens, ages 48 32 | 16 0.
TEST(FamilyMigration, EachBlockToItsLevelSharedOnesToTheMostCompact) {
  paged_cache cache(cache_config(32, payload_mode::accounting));
  const auto [a, b] = test::two_sharing_first_block(cache, 160, 64);
  const auto r = cache.migrate(age(32, 96), precision::fp16, 64);
  // a asks q4 for 0..3 and q8 for 4..7; b asks q8 for 0..1: the shared block 0 goes to q4.
  EXPECT_EQ(tier_tags(cache, a), "q4 q4 q4 q4 q8 q8 q8 q8 fp16 fp16");
  EXPECT_EQ(tier_tags(cache, b), "q4 q8 fp16 fp16");
  EXPECT_EQ(r.blocks, 9u);
  EXPECT_EQ(r.blocks_by_level[ordinal(precision::q4)], 4u);
  EXPECT_EQ(r.blocks_by_level[ordinal(precision::q8)], 5u);
  EXPECT_FALSE(r.stalled);
  EXPECT_EQ(cache.migrate(age(32, 96), precision::fp16, 64).blocks, 0u);  // nothing left
  // Sixteen tokens later a's block 4 turns 96 old and block 8 32 old.
  ASSERT_TRUE(cache.ensure_capacity(a, 176));
  ASSERT_TRUE(cache.advance(a, 16));
  EXPECT_EQ(cache.migrate(age(32, 96), precision::fp16, 64).blocks, 2u);
  EXPECT_EQ(tier_tags(cache, a), "q4 q4 q4 q4 q4 q8 q8 q8 q8 fp16 fp16");
  EXPECT_EQ(cache.audit(), "");
}

// 4 frames, full. Hot tail 16: ages 48 (q4), 32 and 16 (q8), the last block hot. The q4 block
// alone frees one frame and needs two (its quarter frame and a frame of scales): it stalls. The
// two q8 blocks free two frames and need two: they move.
TEST(FamilyMigration, EachLevelIsAllOrNothing) {
  paged_cache cache(cache_config(4, payload_mode::accounting, 16, 16));
  const sequence_id s = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(s, 64));
  ASSERT_TRUE(cache.advance(s, 64));
  auto r = cache.migrate(age(16, 48), precision::fp16, 8);
  EXPECT_TRUE(r.stalled);
  EXPECT_EQ(r.blocks, 2u);
  EXPECT_EQ(r.blocks_by_level[ordinal(precision::q8)], 2u);
  EXPECT_EQ(tier_tags(cache, s), "fp16 q8 q8 fp16");
  // Now the frame of scales has room: the q4 block fits in the frame it gives up.
  r = cache.migrate(age(16, 48), precision::fp16, 8);
  EXPECT_FALSE(r.stalled);
  EXPECT_EQ(r.blocks, 1u);
  EXPECT_EQ(tier_tags(cache, s), "q4 q8 q8 fp16");
  EXPECT_EQ(cache.audit(), "");
}

// The scan cursors belong to one rule: switching families mid-run finds every block again.
TEST(FamilyMigration, SwitchingFamiliesRescans) {
  paged_cache cache(cache_config(32, payload_mode::accounting));
  const sequence_id s = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(s, 160));
  ASSERT_TRUE(cache.advance(s, 160));
  policy_config sinks;
  sinks.family = policy_family::sinks_recent;
  sinks.sink_tokens = 16;
  sinks.recent_tokens = 64;
  sinks.fixed_level = precision::q8;
  EXPECT_EQ(cache.migrate(sinks, precision::fp16, 64).blocks, 5u);
  EXPECT_EQ(tier_tags(cache, s), "fp16 q8 q8 q8 q8 q8 fp16 fp16 fp16 fp16");
  EXPECT_EQ(cache.migrate(precision::q4, 64).blocks, 8u);  // ewma at q4: every cold block
  EXPECT_EQ(tier_tags(cache, s), "q4 q4 q4 q4 q4 q4 q4 q4 fp16 fp16");
  EXPECT_EQ(cache.audit(), "");
}

}  // namespace
}  // namespace kvscope
