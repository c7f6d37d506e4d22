// block_index against std::unordered_map as the model: random inserts, erases and lookups,
// with keys crowded into few home slots so that probe runs wrap and deletions shift entries.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <random>
#include <unordered_map>

#include "sched/block_index.hpp"

namespace kvscope {
namespace {

TEST(BlockIndex, InsertFindErase) {
  block_index index;
  EXPECT_EQ(index.find(42), no_block);
  EXPECT_TRUE(index.insert(42, 7));
  EXPECT_FALSE(index.insert(42, 8));  // first registration wins
  EXPECT_EQ(index.find(42), 7u);
  EXPECT_EQ(index.size(), 1u);
  EXPECT_TRUE(index.erase(42));
  EXPECT_FALSE(index.erase(42));
  EXPECT_EQ(index.find(42), no_block);
  EXPECT_EQ(index.size(), 0u);
}

// Keys whose multiplicative hashes collide in the top bits: many share a home slot.
std::uint64_t crowded_key(std::mt19937_64& rng, std::uint64_t spread) {
  return (rng() % spread) * 0x10000000000ull + rng() % 3;
}

TEST(BlockIndex, MatchesAMapThroughAMillionRandomOperations) {
  std::mt19937_64 rng(7);
  for (const std::uint64_t spread : {std::uint64_t{8}, std::uint64_t{1000}, std::uint64_t{1} << 40}) {
    block_index index;
    std::unordered_map<std::uint64_t, block_id> model;
    for (int op = 0; op < 350000; ++op) {
      const std::uint64_t key = spread < 1000 ? crowded_key(rng, spread) + rng() % 64 : rng() % spread;
      switch (rng() % 3) {
        case 0: {
          const auto value = static_cast<block_id>(rng() % 1000000);
          ASSERT_EQ(index.insert(key, value), model.try_emplace(key, value).second);
          break;
        }
        case 1:
          ASSERT_EQ(index.erase(key), model.erase(key) == 1);
          break;
        default: {
          const auto it = model.find(key);
          ASSERT_EQ(index.find(key), it == model.end() ? no_block : it->second);
        }
      }
      ASSERT_EQ(index.size(), model.size());
    }
    for (const auto& [key, value] : model) ASSERT_EQ(index.find(key), value);
    index.clear();
    EXPECT_EQ(index.size(), 0u);
    for (const auto& entry : model) ASSERT_EQ(index.find(entry.first), no_block);
  }
}

RC_GTEST_PROP(BlockIndex, AgreesWithAMap, (const std::vector<std::pair<std::uint8_t, std::uint16_t>>& ops)) {
  block_index index;
  std::unordered_map<std::uint64_t, block_id> model;
  for (const auto& [kind, raw] : ops) {
    const std::uint64_t key = raw % 97;  // few keys: every run collides and wraps
    if (kind % 2 == 0) {
      RC_ASSERT(index.insert(key, raw) == model.try_emplace(key, raw).second);
    } else {
      RC_ASSERT(index.erase(key) == (model.erase(key) == 1));
    }
    RC_ASSERT(index.size() == model.size());
  }
  for (std::uint64_t key = 0; key < 97; ++key) {
    const auto it = model.find(key);
    RC_ASSERT(index.find(key) == (it == model.end() ? no_block : it->second));
  }
}

}  // namespace
}  // namespace kvscope
