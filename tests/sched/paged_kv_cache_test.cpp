#include <gtest/gtest.h>

#include "memory/paged_cache.hpp"
#include "sched/block_manager.hpp"

namespace kvscope {
namespace {

paged_cache_config tiny_cache(std::uint64_t budget) {
  paged_cache_config c;
  c.pool.shape = *find_model_shape("tiny");
  c.pool.budget_bytes = budget;
  c.pool.mode = payload_mode::accounting;
  c.tail_tokens = 16;
  return c;
}

request make_request(std::uint64_t id, std::uint32_t prompt) {
  request r;
  r.id = id;
  r.prompt_tokens = prompt;
  r.output_tokens = 1;
  return r;
}

// A 10-block prompt whose first 8 blocks carry prefix hashes (shared with any request made so).
request with_shared_prefix(std::uint64_t id) {
  request r = make_request(id, 16 * 10);
  r.prefix_block_size = 16;
  for (std::uint64_t i = 0; i < 8; ++i) r.prefix_hashes.push_back(100 + i);
  return r;
}

// Fills the pool with cached q8 blocks (their scales reserve frames too) by running sequences
// to completion.
void fill_with_cached_q8(paged_cache& cache, block_manager& kv, int sequences) {
  kv.set_cold_level(precision::q8);
  for (int i = 0; i < sequences; ++i) {
    const request r = make_request(static_cast<std::uint64_t>(i), 16 * 20);
    (void)kv.begin_sequence(i, r, r.prompt_tokens);
    ASSERT_TRUE(kv.allocate_slots(i, r.prompt_tokens));
    ASSERT_TRUE(cache.advance(kv.cache_id(i), r.prompt_tokens).has_value());
    kv.end_sequence(i);
  }
}

TEST(PagedKvCache, MakeRoomEvictsCachedBlocksScalesIncluded) {
  paged_cache cache(tiny_cache(1ull << 20));  // 64 frames
  block_manager kv(cache, true);
  fill_with_cached_q8(cache, kv, 6);
  ASSERT_LT(cache.pool().free_frames(), 20u);  // the pool is mostly cached blocks now
  kv.set_cold_level(precision::fp16);
  // Nearly the whole pool at fp16: only possible once every cached block and its scales go.
  EXPECT_TRUE(kv.make_room_for(16 * 60, 2, kv_cache_manager::eviction::when_estimated_enough));
  EXPECT_GE(cache.pool().free_frames(), 62u);
  EXPECT_GT(kv.prefix_stats().evictions, 0u);
  EXPECT_EQ(cache.audit(), "");
}

TEST(PagedKvCache, MakeRoomKeepsTheCacheWhenEvictingCannotHelp) {
  paged_cache cache(tiny_cache(1ull << 20));
  block_manager kv(cache, true);
  fill_with_cached_q8(cache, kv, 2);
  const auto cached_before = cache.pool().usage().tiers[ordinal(precision::q8)].cached_blocks;
  ASSERT_GT(cached_before, 0u);
  kv.set_cold_level(precision::fp16);
  EXPECT_FALSE(kv.make_room_for(16 * 70, 0, kv_cache_manager::eviction::when_estimated_enough));  // more than the pool
  EXPECT_EQ(kv.prefix_stats().evictions, 0u);
  EXPECT_EQ(cache.pool().usage().tiers[ordinal(precision::q8)].cached_blocks, cached_before);
}

TEST(PagedKvCache, SharedPrefixBlocksAreHitAndColdBlocksBornAtTheLevel) {
  paged_cache cache(tiny_cache(4ull << 20));
  block_manager kv(cache, true);
  const request a = with_shared_prefix(1);
  const request b = with_shared_prefix(2);
  kv.set_cold_level(precision::q4);
  EXPECT_EQ(kv.begin_sequence(0, a, a.prompt_tokens), 0u);
  ASSERT_TRUE(kv.allocate_slots(0, a.prompt_tokens));
  // Blocks wholly older than the 16-token tail were born q4, the rest fp16.
  const auto table = *cache.block_table(kv.cache_id(0));
  const std::vector<block_id> blocks(table.begin(), table.end());
  EXPECT_EQ(cache.pool().tier(blocks.front()), precision::q4);
  EXPECT_EQ(cache.pool().tier(blocks.back()), precision::fp16);
  // b shares a's 8 hashed blocks (its remaining two are unique to it).
  EXPECT_EQ(kv.begin_sequence(1, b, b.prompt_tokens), 16u * 8);
  EXPECT_EQ(cache.pool().refcount(blocks[0]), 2u);
  ASSERT_TRUE(kv.allocate_slots(1, b.prompt_tokens));  // admitted: its hits count now
  EXPECT_EQ(kv.prefix_stats().hits, 16u * 8);
  kv.end_sequence(1);
  kv.end_sequence(0);
  EXPECT_EQ(cache.audit(), "");
}

// The scheduler looks a request's prefix up, and gives it back (end_sequence) when there is no
// room yet; it tries again on a later step. Only the admission that succeeded counts: one
// query of its prompt, one set of hits, however many steps it waited.
TEST(PagedKvCache, PrefixLookupsCountOnlyWhenTheAdmissionSucceeds) {
  paged_cache cache(tiny_cache(4ull << 20));
  block_manager kv(cache, true);
  const request a = with_shared_prefix(1);
  (void)kv.begin_sequence(0, a, a.prompt_tokens);
  ASSERT_TRUE(kv.allocate_slots(0, a.prompt_tokens));
  ASSERT_TRUE(cache.advance(kv.cache_id(0), a.prompt_tokens).has_value());  // full blocks stay cached
  kv.finish_sequence(0);
  EXPECT_EQ(kv.prefix_stats().queries, 16u * 10);
  EXPECT_EQ(kv.prefix_stats().hits, 0u);

  const request b = with_shared_prefix(2);
  for (sequence_id attempt = 1; attempt <= 3; ++attempt) {
    EXPECT_EQ(kv.begin_sequence(attempt, b, b.prompt_tokens), 16u * 8);
    kv.end_sequence(attempt);  // no room: given back
  }
  EXPECT_EQ(kv.prefix_stats().queries, 16u * 10);
  EXPECT_EQ(kv.prefix_stats().hits, 0u);
  EXPECT_EQ(kv.begin_sequence(4, b, b.prompt_tokens), 16u * 8);
  ASSERT_TRUE(kv.allocate_slots(4, 16 * 9));
  EXPECT_EQ(kv.prefix_stats().queries, 2u * 16 * 10);
  EXPECT_EQ(kv.prefix_stats().hits, 16u * 8);
  ASSERT_TRUE(kv.allocate_slots(4, 16 * 10));  // later growth counts nothing more
  EXPECT_EQ(kv.prefix_stats().queries, 2u * 16 * 10);
  kv.finish_sequence(4);
  EXPECT_EQ(cache.audit(), "");
}

// A block only its own request can carry (no prefix hash) is cached when the request ends either
// way, but findable only when it may come back: a preempted request hits its own blocks, a
// finished one leaves nothing in the hash index (it would never be looked up).
TEST(PagedKvCache, UniqueBlocksAreFindableOnlyForARequestThatMayComeBack) {
  paged_cache cache(tiny_cache(4ull << 20));
  block_manager kv(cache, true);
  const request a = make_request(1, 16 * 5 + 3);
  EXPECT_EQ(kv.begin_sequence(0, a, a.prompt_tokens), 0u);
  ASSERT_TRUE(kv.allocate_slots(0, a.prompt_tokens));
  ASSERT_TRUE(cache.advance(kv.cache_id(0), a.prompt_tokens).has_value());
  kv.finish_sequence(0);
  // Five full blocks cached (LRU), none findable: the same request cannot hit them.
  EXPECT_EQ(cache.pool().usage().tiers[ordinal(precision::fp16)].cached_blocks, 5u);
  EXPECT_EQ(kv.begin_sequence(1, a, a.prompt_tokens), 0u);
  kv.end_sequence(1);

  const request b = make_request(2, 16 * 5 + 3);
  EXPECT_EQ(kv.begin_sequence(2, b, b.prompt_tokens), 0u);
  ASSERT_TRUE(kv.allocate_slots(2, b.prompt_tokens));
  ASSERT_TRUE(cache.advance(kv.cache_id(2), b.prompt_tokens).has_value());
  kv.end_sequence(2);  // preempted: it may come back
  EXPECT_EQ(kv.begin_sequence(3, b, b.prompt_tokens), 16u * 5);
  kv.finish_sequence(3);
  EXPECT_EQ(cache.audit(), "");
}

// The scheduler skips allocate_slots within quiet_tokens: up to it nothing a caller sees may
// change, and the next token must need work (a new block, or registering the block it fills).
TEST(PagedKvCache, QuietTokensEndWhereAllocateSlotsHasWorkAgain) {
  for (const bool prefix : {false, true}) {
    for (const bool came_back : {false, true}) {
      if (came_back && !prefix) continue;
      SCOPED_TRACE(std::string(prefix ? "prefix caching" : "no prefix caching") + (came_back ? ", came back" : ""));
      paged_cache cache(tiny_cache(1ull << 20));
      block_manager kv(cache, prefix);
      const request r = make_request(0, 40);  // 3 blocks of 16, the last one partial
      if (came_back) {  // preempted once: its blocks are registered as they fill, findable
        (void)kv.begin_sequence(0, r, r.prompt_tokens);
        ASSERT_TRUE(kv.allocate_slots(0, r.prompt_tokens));
        kv.end_sequence(0);
      }
      (void)kv.begin_sequence(0, r, r.prompt_tokens);
      ASSERT_TRUE(kv.allocate_slots(0, r.prompt_tokens));
      ASSERT_TRUE(cache.advance(kv.cache_id(0), r.prompt_tokens).has_value());
      const std::uint32_t quiet = kv.quiet_tokens(0);
      // A block only this request could look up is registered when the next one is allocated (or
      // the sequence ends); one another request could find is registered as the 48th token fills it.
      EXPECT_EQ(quiet, came_back ? 47u : 48u);
      const auto fp16 = [&] { return cache.pool().usage().tiers[ordinal(precision::fp16)]; };
      const auto before = fp16().blocks;
      ASSERT_TRUE(kv.allocate_slots(0, quiet));
      EXPECT_EQ(fp16().blocks, before);
      EXPECT_EQ(kv.quiet_tokens(0), quiet);
      ASSERT_TRUE(kv.allocate_slots(0, quiet + 1));
      EXPECT_GT(kv.quiet_tokens(0), quiet);
      EXPECT_EQ(fp16().blocks, came_back ? before : before + 1);
      EXPECT_EQ(cache.audit(), "");
    }
  }
}

// A request that finishes right as its last block fills, with that block's registration still
// waiting (quiet_tokens): finishing registers it first, so it stays cached as every full block does.
TEST(PagedKvCache, FinishingRegistersTheBlockThatJustFilled) {
  paged_cache cache(tiny_cache(1ull << 20));
  block_manager kv(cache, true);
  const request r = make_request(0, 40);
  (void)kv.begin_sequence(0, r, r.prompt_tokens);
  ASSERT_TRUE(kv.allocate_slots(0, r.prompt_tokens));
  ASSERT_TRUE(cache.advance(kv.cache_id(0), r.prompt_tokens).has_value());
  ASSERT_EQ(kv.quiet_tokens(0), 48u);
  ASSERT_TRUE(cache.advance(kv.cache_id(0), 8).has_value());  // tokens 41..48 fill block 2
  kv.finish_sequence(0);
  EXPECT_EQ(cache.pool().usage().tiers[ordinal(precision::fp16)].cached_blocks, 3u);
  EXPECT_EQ(cache.audit(), "");
}

}  // namespace
}  // namespace kvscope
