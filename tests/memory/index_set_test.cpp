#include <gtest/gtest.h>

#include <random>
#include <set>

#include "memory/index_set.hpp"

namespace kvscope {
namespace {

TEST(IndexSet, AgreesWithStdSet) {
  for (std::uint32_t capacity : {1u, 63u, 64u, 65u, 4096u, 4097u, 300000u}) {
    index_set set(capacity);
    std::set<std::uint32_t> model;
    std::mt19937 rng(capacity);
    std::uniform_int_distribution<std::uint32_t> pick(0, capacity - 1);
    for (int i = 0; i < 20000; ++i) {
      const std::uint32_t v = pick(rng);
      if (rng() % 2 == 0) {
        set.insert(v);
        model.insert(v);
      } else {
        set.erase(v);
        model.erase(v);
      }
      ASSERT_EQ(set.size(), model.size());
      ASSERT_EQ(set.contains(v), model.count(v) == 1);
      if (!model.empty()) {
        ASSERT_EQ(set.first(), *model.begin());
      }
    }
  }
}

// The pool's pattern: take the smallest member, give random ones back. first() is a kept minimum
// and erasing it searches the successor, so this is the path that must agree with the model.
TEST(IndexSet, FirstAndNextFromAgreeWithStdSetWhenTakingTheSmallest) {
  for (std::uint32_t capacity : {1u, 64u, 65u, 4097u, 300000u}) {
    index_set set(capacity, true);
    std::set<std::uint32_t> model;
    for (std::uint32_t i = 0; i < capacity; ++i) model.insert(i);
    std::mt19937 rng(capacity + 1);
    std::uniform_int_distribution<std::uint32_t> pick(0, capacity - 1);
    for (int i = 0; i < 20000; ++i) {
      if (!model.empty() && rng() % 3 != 0) {
        const std::uint32_t first = set.first();
        ASSERT_EQ(first, *model.begin());
        set.erase(first);
        model.erase(first);
      } else {
        const std::uint32_t v = pick(rng);
        set.insert(v);
        model.insert(v);
      }
      const std::uint32_t probe = pick(rng);
      const auto it = model.lower_bound(probe);
      ASSERT_EQ(set.next_from(probe), it == model.end() ? capacity : *it) << capacity << " " << probe;
      ASSERT_EQ(set.size(), model.size());
    }
    EXPECT_EQ(set.next_from(capacity), capacity);
  }
}

TEST(IndexSet, FullConstructionHoldsEverything) {
  index_set set(130, true);
  EXPECT_EQ(set.size(), 130u);
  EXPECT_EQ(set.first(), 0u);
  for (std::uint32_t i = 0; i < 129; ++i) set.erase(i);
  EXPECT_EQ(set.first(), 129u);
  set.erase(129);
  EXPECT_TRUE(set.empty());
  EXPECT_TRUE(index_set(0).empty());
}

}  // namespace
}  // namespace kvscope
