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
