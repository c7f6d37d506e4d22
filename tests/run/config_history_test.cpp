// The configs a live run ran under, step ranges from its command log, and the share of the run
// one config governed (a policy export's provenance).
#include <gtest/gtest.h>

#include "run/config_history.hpp"

namespace kvscope {
namespace {

policy_config withQ8(float q8) {
  policy_config c;
  c.q8_threshold = q8;
  return c;
}

TEST(ConfigHistory, ReconfiguresSplitTheRunIntoSpans) {
  const policy_config a = withQ8(0.7f), b = withQ8(0.6f);
  const std::vector<logged_command> log = {{100, reconfigure_command{b}}, {100, pause_command{}},
                                           {300, reconfigure_command{a}}};
  const auto spans = config_history(a, log, 400);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].first_step, 0u);
  EXPECT_EQ(spans[0].end_step, 100u);
  EXPECT_EQ(spans[1].config, b);
  EXPECT_EQ(spans[1].end_step, 300u);
  EXPECT_EQ(spans[2].end_step, 400u);
  EXPECT_DOUBLE_EQ(governed_share(spans, a), 0.5);
  EXPECT_DOUBLE_EQ(governed_share(spans, b), 0.5);
  EXPECT_DOUBLE_EQ(governed_share(spans, withQ8(0.5f)), 0.0);
}

TEST(ConfigHistory, AResetStartsOverAndAChangeAtStepZeroGovernsAll) {
  const policy_config a = withQ8(0.7f), b = withQ8(0.6f);
  const std::vector<logged_command> log = {{50, reconfigure_command{b}}, {80, reset_command{}},
                                           {0, reconfigure_command{b}}};
  const auto spans = config_history(a, log, 200);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_DOUBLE_EQ(governed_share(spans, b), 1.0);
  EXPECT_DOUBLE_EQ(governed_share(config_history(a, {}, 0), a), 0.0);  // no steps yet
}

TEST(ConfigHistory, AnInvalidConfigIsIgnoredAsTheEngineIgnoresIt) {
  policy_config bad = withQ8(0.9f);
  bad.q4_threshold = 0.5f;  // below q8
  ASSERT_TRUE(validate(bad).has_value());
  const auto spans = config_history(withQ8(0.7f), {{10, reconfigure_command{bad}}}, 20);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_DOUBLE_EQ(governed_share(spans, withQ8(0.7f)), 1.0);
}

}  // namespace
}  // namespace kvscope
