#include <gtest/gtest.h>

#include <tbb/global_control.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "memory/paged_cache.hpp"
#include "memory/quality.hpp"
#include "memory_test_support.hpp"

namespace kvscope {
namespace {

using test::cache_config;

std::vector<precision> tiers_of(const paged_cache& cache, sequence_id s) {
  std::vector<precision> tiers;
  const auto table = *cache.block_table(s);
  for (block_id b : table) tiers.push_back(cache.pool().tier(b));
  return tiers;
}

// tail 32 tokens, 16 a block: with 100 tokens, blocks 0..3 (ending at or before 68) are cold.
TEST(Migration, ColdBlocksMoveToTheLevelAndFreeMemory) {
  paged_cache cache(cache_config(16));
  const synthetic_kv data{.seed = 1};
  const sequence_id s = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(s, 100));
  ASSERT_TRUE(write_synthetic(cache, data, s, 5, 0, 100));
  const std::uint64_t before = cache.pool().bytes_in_use();
  const migration_result r = cache.migrate(precision::q8, 64);
  EXPECT_EQ(r.blocks, 4u);
  EXPECT_FALSE(r.stalled);
  using P = precision;
  EXPECT_EQ(tiers_of(cache, s), (std::vector<P>{P::q8, P::q8, P::q8, P::q8, P::fp16, P::fp16, P::fp16}));
  const std::uint64_t frame = cache.pool().frame_bytes();
  EXPECT_EQ(r.bytes_freed, static_cast<std::int64_t>(2 * frame - 4 * 512));  // 4 frames -> 2 + scales
  EXPECT_EQ(cache.pool().bytes_in_use(), before - static_cast<std::uint64_t>(r.bytes_freed));
  EXPECT_EQ(cache.migrate(precision::q8, 64).blocks, 0u);  // nothing left to do
  // The data survived, within q8's error.
  const sequence_stream streams[] = {{s, 5}};
  const auto err = measure_cache_error(cache, data, streams);
  EXPECT_LT(err[ordinal(precision::q8)].relative(), 0.02);
  EXPECT_LT(err[ordinal(precision::fp16)].relative(), 1e-3);
  EXPECT_EQ(cache.audit(), "");
}

TEST(Migration, WorkIsBoundedAndRoundRobin) {
  paged_cache cache(cache_config(32, payload_mode::accounting));
  const sequence_id a = cache.create_sequence();
  const sequence_id b = cache.create_sequence();
  for (sequence_id s : {a, b}) {
    ASSERT_TRUE(cache.ensure_capacity(s, 128));
    ASSERT_TRUE(cache.advance(s, 128));  // 6 cold blocks each
  }
  EXPECT_EQ(cache.migrate(precision::q4, 4).blocks, 4u);  // from a
  EXPECT_EQ(cache.migrate(precision::q4, 4).blocks, 4u);  // b first: it comes next
  using P = precision;
  EXPECT_EQ(tiers_of(cache, a), (std::vector<P>{P::q4, P::q4, P::q4, P::q4, P::fp16, P::fp16, P::fp16, P::fp16}));
  EXPECT_EQ(tiers_of(cache, b), (std::vector<P>{P::q4, P::q4, P::q4, P::q4, P::fp16, P::fp16, P::fp16, P::fp16}));
  EXPECT_EQ(cache.migrate(precision::q4, 100).blocks, 4u);
  EXPECT_EQ(cache.audit(), "");
}

TEST(Migration, NeverExpandsAndSkipsSameSizeTiers) {
  paged_cache cache(cache_config(32, payload_mode::accounting));
  const sequence_id s = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(s, 96));
  ASSERT_TRUE(cache.advance(s, 64));  // blocks 0, 1 cold
  EXPECT_EQ(cache.migrate(precision::q4, 8).blocks, 2u);
  ASSERT_TRUE(cache.advance(s, 32));  // blocks 2, 3 become cold
  EXPECT_EQ(cache.migrate(precision::q8, 8).blocks, 2u);  // the level fell: new cold ones at q8
  using P = precision;
  EXPECT_EQ(tiers_of(cache, s), (std::vector<P>{P::q4, P::q4, P::q8, P::q8, P::fp16, P::fp16}));
  EXPECT_EQ(cache.migrate(precision::fp8, 8).blocks, 0u);  // q8 -> fp8 would free nothing
  EXPECT_EQ(cache.migrate(precision::fp16, 8).blocks, 0u);
  EXPECT_EQ(cache.migrate(precision::q4, 8).blocks, 2u);  // the level rose again
  EXPECT_EQ(cache.audit(), "");
}

TEST(Migration, RequantizesFromStoredData) {
  paged_cache cache(cache_config(16));
  const synthetic_kv data{.seed = 2};
  const sequence_id s = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(s, 80));
  ASSERT_TRUE(write_synthetic(cache, data, s, 9, 0, 80));
  ASSERT_EQ(cache.migrate(precision::q8, 8).blocks, 3u);
  const sequence_stream streams[] = {{s, 9}};
  const double q8_error = measure_cache_error(cache, data, streams)[ordinal(precision::q8)].relative();
  ASSERT_EQ(cache.migrate(precision::q4, 8).blocks, 3u);  // q8 -> q4, through f32
  const auto err = measure_cache_error(cache, data, streams);
  EXPECT_TRUE(std::isnan(err[ordinal(precision::q8)].relative()));
  EXPECT_GT(err[ordinal(precision::q4)].relative(), q8_error);
  EXPECT_LT(err[ordinal(precision::q4)].relative(), 0.2);
}

TEST(Migration, StallsWithoutChangeWhenNothingFits) {
  paged_cache cache(cache_config(4, payload_mode::accounting));
  const sequence_id s = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(s, 64));
  ASSERT_TRUE(cache.advance(s, 48));  // only block 0 is cold; memory is full
  const auto before = cache.pool().snapshot();
  const migration_result r = cache.migrate(precision::q8, 8);
  EXPECT_TRUE(r.stalled);
  EXPECT_EQ(r.blocks, 0u);
  EXPECT_EQ(cache.pool().snapshot().frames, before.frames);
  ASSERT_TRUE(cache.advance(s, 16));  // block 1 cold too: two blocks free a frame together
  EXPECT_EQ(cache.migrate(precision::q8, 8).blocks, 2u);
  EXPECT_EQ(cache.audit(), "");
}

TEST(Migration, SharedBlocksMoveOnce) {
  paged_cache cache(cache_config(16, payload_mode::accounting));
  const auto [a, b] = test::two_sharing_first_block(cache, 80, 80);
  const block_id shared = (*cache.block_table(a))[0];
  EXPECT_EQ(cache.migrate(precision::q8, 64).blocks, 5u);  // 3 cold each, block 0 shared
  EXPECT_EQ(cache.pool().tier(shared), precision::q8);
  EXPECT_EQ(cache.audit(), "");
}

// The same operations give the same bytes with one thread or several.
std::vector<std::uint8_t> run_with_threads(int threads) {
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
  paged_cache cache(cache_config(64));
  const synthetic_kv data{.seed = 3};
  std::vector<sequence_id> ids;
  for (int i = 0; i < 4; ++i) {
    const sequence_id s = cache.create_sequence();
    EXPECT_TRUE(cache.ensure_capacity(s, 160));
    EXPECT_TRUE(write_synthetic(cache, data, s, static_cast<std::uint64_t>(i), 0, 160));
    ids.push_back(s);
  }
  cache.migrate(precision::q8, 10);
  cache.migrate(precision::q4, 7);
  cache.migrate(precision::q4, 64);
  std::vector<std::uint8_t> bytes;
  for (sequence_id s : ids) {
    const auto table = *cache.block_table(s);
    for (block_id b : table) {
      const block_data d = cache.pool().data(b);
      const tier_layout& l = cache.pool().layout(d.tier);
      bytes.insert(bytes.end(), d.payload, d.payload + l.payload_bytes);
      const auto* scales = reinterpret_cast<const std::uint8_t*>(d.scales);
      bytes.insert(bytes.end(), scales, scales + l.scale_bytes);
      bytes.push_back(static_cast<std::uint8_t>(cache.pool().info(b).frame));
    }
  }
  return bytes;
}

TEST(Migration, ResultsDoNotDependOnThreadCount) {
  const auto one = run_with_threads(1);
  EXPECT_EQ(one, run_with_threads(2));
  EXPECT_EQ(one, run_with_threads(4));
}

}  // namespace
}  // namespace kvscope
