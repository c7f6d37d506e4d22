#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "memory/block_pool.hpp"
#include "memory_test_support.hpp"

namespace kvscope {
namespace {

using test::pool_config;
constexpr std::uint64_t tiny_frame_bytes = 16 * 512 * 2;  // tiny shape, 16 tokens: 16 KiB

TEST(BlockPool, GeometryAndBudgetRounding) {
  auto config = pool_config(10);
  config.budget_bytes += 100;  // not a whole frame: rounded down
  block_pool pool(config);
  EXPECT_EQ(pool.frame_bytes(), tiny_frame_bytes);
  EXPECT_EQ(pool.frame_count(), 10u);
  EXPECT_EQ(pool.budget_bytes(), 10 * tiny_frame_bytes);
  EXPECT_EQ(pool.layout(precision::q8).scale_bytes, 512u);  // 8192 values / 32 x 2 B
  EXPECT_EQ(pool.layout(precision::q4).scale_bytes, 1024u);
  EXPECT_EQ(pool.free_frames(), 10u);
  EXPECT_EQ(pool.bytes_in_use(), 0u);
  EXPECT_EQ(pool.audit(), "");
}

TEST(BlockPool, RejectsBadConfigs) {
  auto bad = pool_config(4);
  bad.shape.head_dim = 48;
  EXPECT_EQ(block_pool::validate(bad), "head_dim must be a multiple of 32");
  EXPECT_THROW(block_pool{bad}, std::invalid_argument);
  bad = pool_config(4);
  bad.shape.layers = 0;
  EXPECT_TRUE(block_pool::validate(bad).has_value());
  bad = pool_config(4);
  bad.block_size = 0;
  EXPECT_TRUE(block_pool::validate(bad).has_value());
  bad = pool_config(4);
  bad.budget_bytes = tiny_frame_bytes - 1;
  EXPECT_EQ(block_pool::validate(bad), "budget is smaller than one frame (one fp16 block)");
  EXPECT_FALSE(block_pool::validate(pool_config(1)).has_value());
}

TEST(BlockPool, SplitsFramesByTierLowestFirst) {
  block_pool pool(pool_config(10));
  const block_id a = *pool.allocate(precision::q8, 0, 0);
  const block_id b = *pool.allocate(precision::q8, 0, 1);
  const block_id c = *pool.allocate(precision::q8, 0, 2);
  const block_id d = *pool.allocate(precision::fp16, 1, 0);
  EXPECT_EQ(pool.info(a).frame, 0u);
  EXPECT_EQ(pool.info(a).slot, 0u);
  EXPECT_EQ(pool.info(b).frame, 0u);
  EXPECT_EQ(pool.info(b).slot, 1u);
  EXPECT_EQ(pool.info(c).frame, 1u);
  EXPECT_EQ(pool.info(d).frame, 2u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(pool.info(*pool.allocate(precision::q4, 2, i)).frame, i < 4 ? 3u : 4u);
  pool.release(a, 0, false);  // the half-free frame 0 is reused before a new frame
  EXPECT_EQ(pool.info(*pool.allocate(precision::fp8, 3, 0)).frame, 5u);  // other tier: new frame
  EXPECT_EQ(pool.info(*pool.allocate(precision::q8, 3, 1)).frame, 0u);
  EXPECT_EQ(pool.audit(), "");
}

TEST(BlockPool, ByteAccountingAddsUpToTheBudget) {
  block_pool pool(pool_config(10));
  for (int i = 0; i < 3; ++i) (void)*pool.allocate(precision::q8, 0, i);
  for (int i = 0; i < 5; ++i) (void)*pool.allocate(precision::q4, 0, i);
  (void)*pool.allocate(precision::fp16, 0, 0);
  const pool_usage u = pool.usage();
  EXPECT_EQ(u.used_frames, 5u);  // q8: 2 frames, q4: 2, fp16: 1
  EXPECT_EQ(u.scale_bytes, 3 * 512u + 5 * 1024u);
  EXPECT_EQ(u.scale_reserved_frames, 1u);
  EXPECT_EQ(u.free_frames, 10u - 5 - 1);
  EXPECT_EQ(u.bytes_in_use, 5 * tiny_frame_bytes + u.scale_bytes);
  EXPECT_EQ(u.bytes_in_use + u.free_bytes, u.budget_bytes);
  const tier_usage& q8 = u.tiers[ordinal(precision::q8)];
  EXPECT_EQ(q8.blocks, 3u);
  EXPECT_EQ(q8.frames, 2u);
  EXPECT_EQ(q8.payload_bytes, 3 * tiny_frame_bytes / 2);
  EXPECT_EQ(q8.slack_bytes, tiny_frame_bytes / 2);
  const tier_usage& q4 = u.tiers[ordinal(precision::q4)];
  EXPECT_EQ(q4.slack_bytes, 3 * tiny_frame_bytes / 4);
  std::uint64_t total = u.scale_bytes + u.free_bytes;
  for (const auto& t : u.tiers) total += t.frame_bytes();
  EXPECT_EQ(total, u.budget_bytes);
  EXPECT_DOUBLE_EQ(pool.occupancy(), static_cast<double>(u.bytes_in_use) / (10 * tiny_frame_bytes));
}

TEST(BlockPool, ScalesTakeFramesFromTheBudget) {
  block_pool pool(pool_config(10));
  // n q4 blocks need ceil(n/4) frames plus ceil(n/16) frames of scales: 32 fit, 33 do not.
  EXPECT_EQ(pool.allocatable(precision::q4), 32u);
  EXPECT_EQ(pool.allocatable(precision::q8), 18u);  // ceil(n/2) + ceil(n/32) <= 10
  EXPECT_EQ(pool.allocatable(precision::fp16), 10u);
  for (int i = 0; i < 32; ++i) ASSERT_TRUE(pool.allocate(precision::q4, 0, i)) << i;
  EXPECT_EQ(pool.free_frames(), 0u);
  EXPECT_EQ(pool.allocate(precision::q4, 0, 32).error(), cache_error::out_of_memory);
  EXPECT_EQ(pool.audit(), "");
}

TEST(BlockPool, AllocatableMatchesWhatAllocateHandsOut) {
  for (precision first : all_precisions) {
    for (precision then : all_precisions) {
      block_pool pool(pool_config(7));
      for (int i = 0; i < 3; ++i) (void)pool.allocate(first, 0, i);
      const std::uint64_t promised = pool.allocatable(then);
      std::uint64_t got = 0;
      while (pool.allocate(then, 1, 0)) ++got;
      EXPECT_EQ(got, promised) << tag(first) << " then " << tag(then);
      EXPECT_EQ(pool.allocatable(then), 0u);
      EXPECT_EQ(pool.audit(), "");
    }
  }
}

TEST(BlockPool, OutOfMemoryChangesNothing) {
  block_pool pool(pool_config(3));
  (void)*pool.allocate(precision::q8, 0, 0);    // frame 0, and frame 2 reserved for scales
  (void)*pool.allocate(precision::fp16, 0, 1);  // frame 1: full now
  const frame_map before = pool.snapshot();
  const pool_usage usage = pool.usage();
  EXPECT_EQ(pool.allocate(precision::fp16, 1, 0).error(), cache_error::out_of_memory);
  EXPECT_EQ(pool.snapshot().frames, before.frames);
  EXPECT_EQ(pool.usage().bytes_in_use, usage.bytes_in_use);
  EXPECT_TRUE(pool.allocate(precision::q8, 1, 0));  // the half-free frame still takes a q8 block
}

TEST(BlockPool, RefcountsCachingAndEviction) {
  block_pool pool(pool_config(4));
  const block_id b = *pool.allocate(precision::fp16, 0, 0);
  pool.retain(b, 1, 0);
  EXPECT_EQ(pool.refcount(b), 2u);
  EXPECT_FALSE(pool.release(b, 0, true));
  EXPECT_EQ(pool.info(b).owner, no_sequence);  // the allocating sequence let go
  EXPECT_TRUE(pool.release(b, 1, true));
  EXPECT_TRUE(pool.is_cached(b));
  EXPECT_TRUE(pool.is_live(b));
  EXPECT_EQ(pool.usage().tiers[0].cached_blocks, 1u);
  EXPECT_EQ(pool.usage().cached_bytes, tiny_frame_bytes);
  EXPECT_EQ(pool.free_frames(), 3u);  // cached blocks hold their frame until evicted
  pool.retain(b, 2, 5);               // a prefix hit revives it
  EXPECT_FALSE(pool.is_cached(b));
  EXPECT_EQ(pool.info(b).owner, 2);
  EXPECT_EQ(pool.info(b).logical_index, 5);
  EXPECT_TRUE(pool.release(b, 2, true));
  pool.evict(b);
  EXPECT_FALSE(pool.is_live(b));
  EXPECT_EQ(pool.free_frames(), 4u);
  const block_id again = *pool.allocate(precision::q4, 0, 0);
  EXPECT_EQ(again, b);  // record reused
  EXPECT_EQ(pool.audit(), "");
}

TEST(BlockPool, SnapshotShowsEverySlot) {
  block_pool pool(pool_config(3));
  const block_id a = *pool.allocate(precision::q4, 7, 2);
  pool.set_fill(a, 9);
  const block_id b = *pool.allocate(precision::fp16, 8, 0);
  pool.release(b, 8, true);
  const frame_map map = pool.snapshot();
  ASSERT_EQ(map.frames.size(), 3u);
  EXPECT_EQ(map.block_size, 16u);
  EXPECT_EQ(map.frame_bytes, tiny_frame_bytes);
  EXPECT_EQ(map.scale_bytes, 1024u);
  EXPECT_EQ(map.scale_reserved_frames, 1u);
  EXPECT_EQ(map.frames[0].tier, precision::q4);
  EXPECT_EQ(map.frames[0].slot_count, 4u);
  EXPECT_EQ(map.frames[0].blocks[0], (block_slot{7, 2, 9, 1, false, a}));
  EXPECT_EQ(map.frames[0].blocks[1], block_slot{});
  EXPECT_EQ(map.frames[1].blocks[0], (block_slot{no_sequence, 0, 0, 0, true, b}));
  EXPECT_FALSE(map.frames[1].is_free());
  EXPECT_TRUE(map.frames[2].is_free());
}

TEST(BlockPool, RelocateMovesOrRollsBackExactly) {
  block_pool pool(pool_config(4));
  std::vector<block_id> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(*pool.allocate(precision::fp16, 0, i));
  // Full: one block alone cannot go to q8 (its half frame plus a frame of scale reserve).
  const frame_map before = pool.snapshot();
  EXPECT_FALSE(pool.relocate({blocks.data(), 1}, precision::q8).has_value());
  EXPECT_EQ(pool.snapshot().frames, before.frames);
  EXPECT_EQ(pool.audit(), "");
  // Two fit: they free two frames and take one plus one of scale reserve.
  const auto old = pool.relocate({blocks.data(), 2}, precision::q8);
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ((*old)[0].place, 0u);
  EXPECT_EQ((*old)[0].tier, precision::fp16);
  EXPECT_EQ(pool.tier(blocks[0]), precision::q8);
  EXPECT_EQ(pool.info(blocks[0]).frame, pool.info(blocks[1]).frame);
  EXPECT_EQ(pool.free_frames(), 0u);
  EXPECT_EQ(pool.audit(), "");
}

TEST(BlockPool, DataModeSlotsAreDisjoint) {
  block_pool pool(pool_config(3));
  std::vector<block_id> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(*pool.allocate(precision::q4, 0, i));
  blocks.push_back(*pool.allocate(precision::q8, 0, 4));
  blocks.push_back(*pool.allocate(precision::q8, 0, 5));
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const block_data d = pool.data(blocks[i]);
    const tier_layout& l = pool.layout(d.tier);
    std::memset(d.payload, static_cast<int>(i + 1), l.payload_bytes);
    for (std::size_t s = 0; s < l.scale_bytes / 2; ++s) d.scales[s] = static_cast<fp16_bits>(i + 1);
  }
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const block_data d = pool.data(blocks[i]);
    const tier_layout& l = pool.layout(d.tier);
    for (std::size_t j = 0; j < l.payload_bytes; ++j) ASSERT_EQ(d.payload[j], i + 1);
    for (std::size_t s = 0; s < l.scale_bytes / 2; ++s) ASSERT_EQ(d.scales[s], i + 1);
  }
}

TEST(BlockPool, AccountingModeHasNoPayload) {
  block_pool pool(pool_config(3, payload_mode::accounting));
  const block_id b = *pool.allocate(precision::q8, 0, 0);
  EXPECT_EQ(pool.data(b).payload, nullptr);
  EXPECT_EQ(pool.data(b).scales, nullptr);
  EXPECT_EQ(pool.bytes_in_use(), tiny_frame_bytes + 512);
}

}  // namespace
}  // namespace kvscope
