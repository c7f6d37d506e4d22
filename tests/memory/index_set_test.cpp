#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>
#include <algorithm>
#include <iterator>

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

// A full index_set beside a std::set model of it, and a random source.
struct full_pair {
  full_pair(std::uint32_t n, unsigned seed)
      : set(n, true), rng(seed), pick(0, n - 1), capacity(n) {
    for (std::uint32_t i = 0; i < n; ++i) model.insert(i);
  }
  // next_from() at a random index agrees with the model.
  void check_next_from() {
    const std::uint32_t probe = pick(rng);
    const auto it = model.lower_bound(probe);
    ASSERT_EQ(set.next_from(probe), it == model.end() ? capacity : *it) << capacity << " " << probe;
  }
  index_set set;
  std::set<std::uint32_t> model;
  std::mt19937 rng;
  std::uniform_int_distribution<std::uint32_t> pick;
  std::uint32_t capacity;
};

// The pool's pattern: take the smallest member, give random ones back. first() is a kept minimum
// and erasing it searches the successor, so this is the path that must agree with the model.
TEST(IndexSet, FirstAndNextFromAgreeWithStdSetWhenTakingTheSmallest) {
  for (std::uint32_t capacity : {1u, 64u, 65u, 4097u, 300000u}) {
    full_pair p(capacity, capacity + 1);
    for (int i = 0; i < 20000; ++i) {
      if (!p.model.empty() && p.rng() % 3 != 0) {
        const std::uint32_t first = p.set.first();
        ASSERT_EQ(first, *p.model.begin());
        p.set.erase(first);
        p.model.erase(first);
      } else {
        const std::uint32_t v = p.pick(p.rng);
        p.set.insert(v);
        p.model.insert(v);
      }
      p.check_next_from();
      ASSERT_EQ(p.set.size(), p.model.size());
    }
    EXPECT_EQ(p.set.next_from(capacity), capacity);
  }
}

// take_smallest(n) is n rounds of first() and erase(), whatever the gaps and word boundaries.
TEST(IndexSet, TakeSmallestAgreesWithRepeatedFirstAndErase) {
  for (std::uint32_t capacity : {1u, 64u, 130u, 4097u, 300000u}) {
    full_pair p(capacity, capacity + 2);
    for (int round = 0; round < 3000; ++round) {
      for (int k = 0; k < 3; ++k) {  // punch holes and refill some
        const std::uint32_t v = p.pick(p.rng);
        if (p.rng() % 2 == 0) {
          p.set.erase(v);
          p.model.erase(v);
        } else {
          p.set.insert(v);
          p.model.insert(v);
        }
      }
      const auto n = static_cast<std::uint32_t>(std::min<std::size_t>(p.model.size(), p.rng() % 200));
      std::vector<std::uint32_t> taken;
      p.set.take_smallest(n, [&](std::uint32_t i) { taken.push_back(i); });
      std::vector<std::uint32_t> expected(p.model.begin(), std::next(p.model.begin(), n));
      for (std::uint32_t i : expected) p.model.erase(i);
      ASSERT_EQ(taken, expected) << capacity << " round " << round;
      ASSERT_EQ(p.set.size(), p.model.size());
      if (!p.model.empty()) {
        ASSERT_EQ(p.set.first(), *p.model.begin());
      }
      for (int k = 0; k < 3; ++k) p.check_next_from();
    }
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
