#include <gtest/gtest.h>

#include "engine/metrics_history.hpp"

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

}  // namespace
}  // namespace kvscope
