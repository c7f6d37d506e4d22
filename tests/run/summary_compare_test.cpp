// Comparing two runs' headline metrics: numbers straight from the summary, and verdicts that
// follow the metric table's better_when.
#include <gtest/gtest.h>

#include <cmath>

#include "run/summary_compare.hpp"

namespace kvscope {
namespace {

TEST(SummaryCompare, EveryHeadlineKeyIsANumericSummaryMetric) {
  const run_summary s{};
  for (std::string_view key : headline_metric_keys()) {
    ASSERT_NE(find_metric(key), nullptr) << key;
    EXPECT_TRUE(summary_number(s, key).has_value()) << key;
  }
  EXPECT_FALSE(summary_number(s, "model").has_value());  // a word
  EXPECT_FALSE(summary_number(s, "no_such_metric").has_value());
}

TEST(SummaryCompare, ValuesAreTheSummarysOwn) {
  run_summary s{};
  s.service.goodput_rps = 3.25;
  s.service.latency.ttft_s.p99 = 0.125;
  s.preemptions = 7;
  s.peak_bytes_per_level = {1, 2, 3, 4};
  const auto v = headline_values(s);
  ASSERT_EQ(v.size(), headline_metric_keys().size());
  EXPECT_EQ(v[0], 3.25);
  EXPECT_EQ(v[2], 0.125);
  EXPECT_EQ(v[7], 7.0);
  EXPECT_EQ(v[11], 4.0);
}

TEST(SummaryCompare, VerdictsFollowBetterWhen) {
  EXPECT_EQ(judge(better_when::higher, 1), change_verdict::better);
  EXPECT_EQ(judge(better_when::higher, -1), change_verdict::worse);
  EXPECT_EQ(judge(better_when::lower, -1), change_verdict::better);
  EXPECT_EQ(judge(better_when::lower, 1), change_verdict::worse);
  EXPECT_EQ(judge(better_when::neither, 1), change_verdict::neutral);
  EXPECT_EQ(judge(better_when::lower, 0), change_verdict::same);
  EXPECT_EQ(judge(better_when::lower, NAN), change_verdict::neutral);
}

TEST(SummaryCompare, MoreGoodputAndFewerPreemptionsAreBetter) {
  run_summary a{}, b{};
  a.service.goodput_rps = 2;
  b.service.goodput_rps = 3;
  a.preemptions = 5;
  b.preemptions = 9;
  const auto changes = compare_headlines(headline_values(a), headline_values(b));
  for (const metric_change& c : changes) {
    if (c.info->key == "goodput_rps") {
      EXPECT_EQ(c.delta, 1);
      EXPECT_EQ(c.verdict, change_verdict::better);
    } else if (c.info->key == "preemptions") {
      EXPECT_EQ(c.delta, 4);
      EXPECT_EQ(c.verdict, change_verdict::worse);
    } else if (c.info->better == better_when::neither) {
      EXPECT_NE(c.verdict, change_verdict::better) << c.info->key;
    }
  }
}

}  // namespace
}  // namespace kvscope
