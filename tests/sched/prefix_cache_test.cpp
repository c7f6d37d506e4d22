#include <gtest/gtest.h>

#include "sched/prefix_cache.hpp"

namespace kvscope {
namespace {

TEST(PrefixCache, ChainHashDependsOnOrder) {
  EXPECT_NE(chain_hash(1, 2), chain_hash(2, 1));
  EXPECT_EQ(chain_hash(1, 2), chain_hash(1, 2));
  EXPECT_NE(chain_hash(chain_hash(0, 7), 8), chain_hash(chain_hash(0, 8), 7));
}

TEST(PrefixCache, FirstRegistrationWins) {
  prefix_cache c;
  EXPECT_TRUE(c.insert(100, 1));
  EXPECT_FALSE(c.insert(100, 2));  // same content computed twice: keep the first block
  EXPECT_FALSE(c.insert(200, 1));  // a block has one hash
  EXPECT_EQ(c.find(100), 1u);
  EXPECT_EQ(c.find(200), no_block);
}

TEST(PrefixCache, EvictsLeastRecentlyCachedFirst) {
  prefix_cache c;
  for (block_id b = 0; b < 4; ++b) ASSERT_TRUE(c.insert(1000 + b, b));
  // A sequence freed last block first: 3, 2, 1, 0 — so its tail goes first.
  for (block_id b : {3u, 2u, 1u, 0u}) c.push_cached(b);
  c.revive(2);  // hit: referenced again, not evictable
  EXPECT_EQ(c.cached_blocks(), 3u);
  EXPECT_EQ(c.pop_lru(), 3u);
  EXPECT_EQ(c.find(1003), no_block);  // evicted blocks are forgotten
  EXPECT_EQ(c.pop_lru(), 1u);
  c.push_cached(2);  // released again: now the most recent
  EXPECT_EQ(c.pop_lru(), 0u);
  EXPECT_EQ(c.pop_lru(), 2u);
  EXPECT_EQ(c.pop_lru(), no_block);
  EXPECT_EQ(c.findable_blocks(), 0u);
}

TEST(PrefixCache, EraseForgetsEverywhere) {
  prefix_cache c;
  ASSERT_TRUE(c.insert(5, 9));
  c.push_cached(9);
  c.erase(9);
  EXPECT_EQ(c.cached_blocks(), 0u);
  EXPECT_EQ(c.find(5), no_block);
  EXPECT_TRUE(c.insert(5, 10));
}

}  // namespace
}  // namespace kvscope
