// The paged cache storing its q4 blocks as q4o (quant/q4o.hpp): the bytes it counts against the
// budget, and the bytes it stores and reads back.
#include <gtest/gtest.h>

#include <vector>

#include "memory/error_factors.hpp"
#include "memory/quality.hpp"
#include "memory_test_support.hpp"

namespace kvscope {
namespace {

using test::cache_config;
using test::pool_config;
using test::tiny_shape;

paged_cache_config q4o_cache_config(std::uint32_t frames, std::uint32_t channels = q4o_default_channels,
                                    std::uint32_t tail = 32) {
  paged_cache_config c = cache_config(frames, payload_mode::data, 16, tail);
  c.pool.q4_storage = q4_format::q4o;
  c.pool.q4o_channels = channels;
  return c;
}

// tiny (2 layers x 2 kv heads x 64), blocks of 16: a block holds 8,192 values. At q4 that is
// 4,096 B of codes and 1,024 B of (d, m) scales; q4o adds 4 tiles x (4 x 3 + 16 x 4) = 304 B.
TEST(Q4oCache, Q4BlocksCountTheirSideRecordsWithTheScales) {
  const block_pool q4(pool_config(64));
  const block_pool q4o(q4o_cache_config(64).pool);
  EXPECT_EQ(q4.layout(precision::q4).payload_bytes, 4096u);
  EXPECT_EQ(q4.layout(precision::q4).scale_bytes, 1024u);
  EXPECT_EQ(q4o.layout(precision::q4).payload_bytes, 4096u);
  EXPECT_EQ(q4o.layout(precision::q4).scale_bytes, 1024u + 304u);
  EXPECT_EQ(q4o.layout(precision::q4).slots_per_frame, 4u);  // the records are in the side table
  EXPECT_DOUBLE_EQ(q4o.layout(precision::q4).effective_factor, (4096.0 + 1328.0) / 16384.0);
  for (precision p : {precision::fp16, precision::q8, precision::fp8}) {
    EXPECT_EQ(q4o.layout(p).total_bytes(), q4.layout(p).total_bytes()) << tag(p);
  }
  // The same budget holds fewer q4o blocks: their side records reserve frames as scales do.
  EXPECT_LT(q4o.allocatable(precision::q4), q4.allocatable(precision::q4));
  EXPECT_EQ(q4.allocatable(precision::q4), 64u * 4 * 16384 / (16384 + 4 * 1024));
}

TEST(Q4oCache, PoolUsageAndAuditCountTheSideRecords) {
  block_pool pool(q4o_cache_config(8).pool);
  const std::uint64_t n = pool.allocatable(precision::q4);
  for (std::uint64_t i = 0; i < n; ++i) ASSERT_TRUE(pool.allocate(precision::q4, 0, static_cast<std::int32_t>(i)));
  EXPECT_FALSE(pool.allocate(precision::q4, 0, 99));
  const pool_usage u = pool.usage();
  EXPECT_EQ(u.scale_bytes, n * 1328);
  EXPECT_EQ(u.tiers[ordinal(precision::q4)].scale_bytes, n * 1328);
  EXPECT_EQ(pool.audit(), "");
}

// Side records are bytes; the side table is an array of halves: an odd total is padded.
TEST(Q4oCache, OddSideRecordsArePaddedToWholeHalves) {
  EXPECT_EQ(q4o_side_bytes(16, 1), 19u);
  EXPECT_EQ(q4o_block_side_bytes(1, 16, 1), 20u);
  EXPECT_EQ(q4o_block_side_bytes(4, 16, 4), 304u);
  block_pool_config c = pool_config(4, payload_mode::data, 16, model_shape{1, 1, 64});
  c.q4_storage = q4_format::q4o;
  c.q4o_channels = 1;
  const block_pool pool(c);
  EXPECT_EQ(pool.layout(precision::q4).scale_bytes, 16u * 2 * 64 / 32 * 4 + 20);
}

TEST(Q4oCache, RefusesWhatTheFormatCannotStore) {
  block_pool_config c = pool_config(4, payload_mode::data, 16, model_shape{1, 1, 512});
  EXPECT_EQ(block_pool::validate(c), std::nullopt);
  c.q4_storage = q4_format::q4o;
  EXPECT_EQ(block_pool::validate(c), "q4o stores head_dim up to 256 and up to 16 key channels, got head_dim 512 and 4");
}

// Blocks written at fp16 and migrated to q4 read back exactly as the q4o kernels store and read a
// block: the kernel-only measure gives the same bits.
TEST(Q4oCache, MigratedBlocksReadBackAsTheKernelsStoreThem) {
  const synthetic_kv data{.seed = 8};
  paged_cache cache(q4o_cache_config(64, q4o_default_channels, 0));
  const sequence_id s = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(s, 128));
  ASSERT_TRUE(write_synthetic(cache, data, s, 7, 0, 128));
  const migration_result m = cache.migrate(precision::q4, 100);
  ASSERT_EQ(m.blocks, 8u);
  const auto paged = measure_attention_error(cache, data, {s, 7});
  ASSERT_TRUE(paged);
  const error_sum direct =
      measure_format_attention_error(data, tiny_shape, {precision::q4, q4_format::q4o, 4}, 128, 16, 7);
  EXPECT_EQ(paged->squared_error, direct.squared_error);
  EXPECT_EQ(paged->squared_reference, direct.squared_reference);
  EXPECT_EQ(cache.audit(), "");
}

// Relative attention error of one sequence of 96 tokens written straight into q4 blocks.
double written_into_q4(const paged_cache_config& config) {
  return test::written_sequence(config, precision::q4).attention_error();
}

// Tokens written one by one into q4o blocks keep their outlier channels: each write re-quantizes
// the tile from the tokens before it, and the error stays near the migrated blocks' and far
// below q4's.
TEST(Q4oCache, TokensWrittenIntoQ4oBlocksKeepTheirOutliers) {
  const double q4 = written_into_q4(cache_config(64));
  const double q4o = written_into_q4(q4o_cache_config(64));
  const synthetic_kv data{.seed = 8};
  const double migrated =
      measure_format_attention_error(data, tiny_shape, {precision::q4, q4_format::q4o, 4}, 96, 16, 11).relative();
  EXPECT_LT(q4o, 0.5 * q4);
  EXPECT_LT(q4o, 1.5 * migrated);
  EXPECT_EQ(written_into_q4(q4o_cache_config(64, 0)), q4);  // no channels: what q4 stores
}

// read() restores a token's outliers as read_block() does for the block.
TEST(Q4oCache, ReadAndReadBlockAgree) {
  test::written_sequence w(q4o_cache_config(64), precision::q4);
  EXPECT_EQ(w.keys(true), w.keys(false));
}

TEST(Q4oCache, ExposureFactorsFollowTheFormat) {
  EXPECT_EQ(attention_error_factors_for(q4_format::q4, 7), attention_error_factors);
  const auto q4o = attention_error_factors_for(q4_format::q4o, 4);
  EXPECT_EQ(q4o[ordinal(precision::q4)], q4o_attention_error_factor);
  EXPECT_EQ(q4o[ordinal(precision::q8)], attention_error_factors[ordinal(precision::q8)]);
  EXPECT_EQ(q4o_attention_error_factors[0], attention_error_factors[ordinal(precision::q4)]);
}

}  // namespace
}  // namespace kvscope
