// The paged cache's q3 level (quant/q3.hpp): how many blocks a frame holds, the bytes it counts
// against the budget, and the bytes it stores and reads back.
#include <gtest/gtest.h>

#include <vector>

#include "memory/quality.hpp"
#include "memory_test_support.hpp"

namespace kvscope {
namespace {

using test::cache_config;
using test::pool_config;
using test::tiny_shape;

// tiny (2 layers x 2 kv heads x 64), blocks of 16: 8,192 values, 16,384 B at fp16. At q3 that is
// 3,072 B of codes, so 5 blocks fit a frame, and a side table of 128 head vectors' scales
// (256 B) and 4 key tiles' records of 4 channels (4 x (4 x 3 + 16 x 4) = 304 B).
TEST(Q3Cache, AFrameHoldsFiveQ3Blocks) {
  block_pool pool(pool_config(4, payload_mode::accounting));
  const tier_layout& q3 = pool.layout(precision::q3);
  EXPECT_EQ(q3.payload_bytes, 3072u);
  EXPECT_EQ(q3.slots_per_frame, 5u);
  EXPECT_LE(5 * q3.payload_bytes, pool.frame_bytes());
  for (std::int32_t i = 0; i < 5; ++i) ASSERT_TRUE(pool.allocate(precision::q3, 0, i));
  frame_map map = pool.snapshot();
  EXPECT_EQ(map.frames[0].tier, precision::q3);
  EXPECT_EQ(map.frames[0].slot_count, 5);
  for (int s = 0; s < 5; ++s) EXPECT_EQ(map.frames[0].blocks[static_cast<std::size_t>(s)].logical_index, s);
  EXPECT_TRUE(map.frames[1].is_free());
  ASSERT_TRUE(pool.allocate(precision::q3, 0, 5));  // the sixth opens the next frame
  map = pool.snapshot();
  EXPECT_EQ(map.frames[1].slot_count, 5);
  EXPECT_EQ(pool.usage().tiers[ordinal(precision::q3)].frames, 2u);
  EXPECT_EQ(pool.usage().tiers[ordinal(precision::q3)].slack_bytes, 2 * pool.frame_bytes() - 6 * q3.payload_bytes);
  EXPECT_EQ(pool.audit(), "");
}

TEST(Q3Cache, ScalesAndSideRecordsCountAgainstTheBudget) {
  const block_pool pool(pool_config(64, payload_mode::accounting));
  EXPECT_EQ(pool.layout(precision::q3).scale_bytes, 256u + 304u);
  block_pool_config no_outliers = pool_config(64, payload_mode::accounting);
  no_outliers.q4o_channels = 0;
  EXPECT_EQ(block_pool(no_outliers).layout(precision::q3).scale_bytes, 256u);
  // The most blocks 64 frames hold: ceil(n / 5) frames of codes and ceil(560 n / 16384) frames of
  // side table.
  std::uint64_t expected = 0;
  while ((expected + 1 + 4) / 5 + ((expected + 1) * 560 + 16383) / 16384 <= 64) ++expected;
  EXPECT_EQ(pool.allocatable(precision::q3), expected);
  block_pool filled(pool_config(64, payload_mode::accounting));
  for (std::uint64_t i = 0; i < expected; ++i) {
    ASSERT_TRUE(filled.allocate(precision::q3, 0, static_cast<std::int32_t>(i)));
  }
  EXPECT_FALSE(filled.allocate(precision::q3, 0, -1));
  const pool_usage u = filled.usage();
  EXPECT_EQ(u.scale_bytes, expected * 560);
  EXPECT_EQ(u.tiers[ordinal(precision::q3)].scale_bytes, expected * 560);
  EXPECT_EQ(filled.audit(), "");
}

// Blocks written at fp16 and migrated to q3 read back exactly as the q3 kernels store and read a
// block, and their error sits between q8's and a loose bound.
TEST(Q3Cache, MigratedBlocksRoundTripAsTheKernelsStoreThem) {
  const synthetic_kv data{.seed = 8};
  paged_cache cache(cache_config(64, payload_mode::data, 16, 0));
  const sequence_id s = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(s, 128));
  ASSERT_TRUE(write_synthetic(cache, data, s, 7, 0, 128));
  const migration_result m = cache.migrate(precision::q3, 100);
  ASSERT_EQ(m.blocks, 8u);
  EXPECT_EQ(m.blocks_by_level[ordinal(precision::q3)], 8u);
  EXPECT_GT(m.bytes_freed, 0);
  const auto paged = measure_attention_error(cache, data, {s, 7});
  ASSERT_TRUE(paged);
  const error_sum direct = measure_format_attention_error(data, tiny_shape, {precision::q3}, 128, 16, 7);
  EXPECT_EQ(paged->squared_error, direct.squared_error);
  EXPECT_EQ(paged->squared_reference, direct.squared_reference);
  const double q8 = measure_format_attention_error(data, tiny_shape, {precision::q8}, 128, 16, 7).relative();
  EXPECT_GT(paged->relative(), q8);
  EXPECT_LT(paged->relative(), 0.6);
  const auto per_level = measure_cache_error(cache, data, std::vector<sequence_stream>{{s, 7}});
  EXPECT_GT(per_level[ordinal(precision::q3)].values, 0u);
  EXPECT_LT(per_level[ordinal(precision::q3)].relative(), 0.6);
  EXPECT_EQ(cache.audit(), "");
}

// Tokens written one by one into q3 blocks: each key write quantizes its tile again from the
// tokens before it; the error stays near the migrated blocks'.
TEST(Q3Cache, TokensWrittenIntoQ3BlocksReadBack) {
  const test::written_sequence w(cache_config(64), precision::q3);
  EXPECT_EQ(w.cache.audit(), "");
  const double written = w.attention_error();
  const synthetic_kv data{.seed = 8};
  const double migrated = measure_format_attention_error(data, tiny_shape, {precision::q3}, 96, 16, 11).relative();
  EXPECT_GT(written, 0.0);
  EXPECT_LT(written, 1.5 * migrated);
}

// read() restores a token's outliers as read_block() does for the block.
TEST(Q3Cache, ReadAndReadBlockAgree) {
  test::written_sequence w(cache_config(64), precision::q3);
  EXPECT_EQ(w.keys(true), w.keys(false));
}

}  // namespace
}  // namespace kvscope
