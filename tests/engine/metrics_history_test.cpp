#include <gtest/gtest.h>

#include "run/metrics_history.hpp"

namespace kvscope {
namespace {

step_metrics at(std::uint64_t step) {
  step_metrics m;
  m.step = step;
  return m;
}

TEST(MetricsHistory, RecentKeepsTheLastStepsInOrder) {
  metrics_history h(4, 8);
  for (std::uint64_t i = 0; i < 10; ++i) h.push(at(i));
  const auto recent = h.recent();
  ASSERT_EQ(recent.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(recent[i].step, 6 + i);
  EXPECT_EQ(h.total(), 10u);
}

TEST(MetricsHistory, OverviewIsEveryStrideThStepAndStaysBounded) {
  metrics_history h(4, 8);
  for (std::uint64_t i = 0; i < 1000; ++i) h.push(at(i));
  const auto& o = h.overview();
  EXPECT_LE(o.size(), 8u);
  EXPECT_GE(o.size(), 4u);
  const auto stride = h.overview_stride();
  for (std::size_t i = 0; i < o.size(); ++i) EXPECT_EQ(o[i].step, i * stride);
  EXPECT_GT(o.back().step + stride, 999u);  // covers the whole run
}

TEST(MetricsHistory, ClearStartsOver) {
  metrics_history h(4, 4);
  for (std::uint64_t i = 0; i < 100; ++i) h.push(at(i));
  h.clear();
  EXPECT_EQ(h.total(), 0u);
  EXPECT_TRUE(h.recent().empty());
  EXPECT_TRUE(h.overview().empty());
  EXPECT_EQ(h.overview_stride(), 1u);
}

// What the plots draw: strictly increasing steps, thinned only before the recent ones, which
// are all there; every level change exactly, however thinned the points around it.
TEST(MetricsHistory, PointsThinTheOldKeepTheRecentAndEveryTransition) {
  metrics_history h(40, 16, 64);
  std::uint64_t changes = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    step_metrics m = at(i);
    m.sim_time_s = static_cast<double>(i) * 0.5;
    m.level = (i / 50) % 2 ? precision::q8 : precision::fp16;
    m.pressure_ewma = static_cast<double>(i) / 1000;
    changes += i > 0 && (i / 50) % 2 != ((i - 1) / 50) % 2;
    h.push(m);
  }
  std::vector<std::uint64_t> steps;
  h.for_each_point([&](const step_metrics& m) { steps.push_back(m.step); });
  ASSERT_EQ(steps.size(), h.point_count());
  EXPECT_LT(steps.size(), 40u + 16u);
  for (std::size_t i = 1; i < steps.size(); ++i) EXPECT_LT(steps[i - 1], steps[i]);
  for (std::size_t i = 0; i < 40; ++i) EXPECT_EQ(steps[steps.size() - 40 + i], 960 + i);
  EXPECT_EQ(steps.front(), 0u);
  EXPECT_EQ(h.first_point().step, 0u);
  EXPECT_EQ(h.last_point().step, 999u);
  ASSERT_EQ(h.transitions().size(), changes);
  EXPECT_EQ(h.transitions_seen(), changes);
  const level_transition& first = h.transitions().front();
  EXPECT_EQ(first.step, 50u);
  EXPECT_EQ(first.from, precision::fp16);
  EXPECT_EQ(first.to, precision::q8);
  EXPECT_DOUBLE_EQ(first.sim_time_s, 25.0);
  EXPECT_DOUBLE_EQ(first.ewma, 0.05);
}

TEST(MetricsHistory, TransitionsKeepTheNewestWhenFull) {
  metrics_history h(4, 4, 3);
  for (std::uint64_t i = 0; i < 20; ++i) {
    step_metrics m = at(i);
    m.level = i % 2 ? precision::q4 : precision::fp16;
    h.push(m);
  }
  EXPECT_EQ(h.transitions_seen(), 19u);
  ASSERT_EQ(h.transitions().size(), 3u);
  EXPECT_EQ(h.transitions().back().step, 19u);
  h.clear();
  EXPECT_TRUE(h.transitions().empty());
  EXPECT_EQ(h.point_count(), 0u);
}

}  // namespace
}  // namespace kvscope
