// Comparing two runs' headline metrics: numbers straight from the summary, and verdicts that
// follow the metric table's better_when.
#include <gtest/gtest.h>

#include <cmath>
#include <string_view>
#include <utility>

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

// What a what-if changes, in one line: relative changes of the reals, counts of the counts, the
// peak bytes of every level as one peak-memory change, and nothing under 1 % of its reference.
TEST(SummaryCompare, ChangeSummarySaysWhatMovedAndByHowMuch) {
  run_summary a{}, b{};
  a.service.goodput_rps = 4.0;
  b.service.goodput_rps = 4.02;  // +0.5 %: under 1 %, left out
  a.service.latency.ttft_s.p99 = 6.0;
  b.service.latency.ttft_s.p99 = 5.4;  // -10 %
  a.service.latency.tpot_s.p50 = 0.0142;
  b.service.latency.tpot_s.p50 = 0.0142;
  a.attention_error_exposure = 0.2;
  b.attention_error_exposure = 0.23;  // +15 %
  a.preemptions = 4;
  b.preemptions = 2;
  a.peak_bytes_per_level = {100, 0, 0, 0, 0};
  b.peak_bytes_per_level = {50, 20, 0, 0, 10};  // 100 -> 80 bytes, q3's counted: -20 % peak memory
  const auto changes = compare_headlines(headline_values(a), headline_values(b));
  EXPECT_NEAR(changes[0].relative, 0.005, 1e-12);
  EXPECT_FALSE(material(changes[0]));
  EXPECT_TRUE(material(changes[2]));
  EXPECT_EQ(change_summary(changes), "-10 % TTFT p99, +15 % attention error, -20 % peak memory; 2 fewer preemptions");

  const auto none = compare_headlines(headline_values(a), headline_values(a));
  EXPECT_EQ(change_summary(none), "no headline changes by 1 % or more");
  run_summary c = a;
  c.level_transitions = 3;  // from 0: a count, material however small
  EXPECT_EQ(change_summary(compare_headlines(headline_values(a), headline_values(c))), "3 more transitions");
}


// One name per headline, whoever says it (the compare panel's rows, the one-line verdict).
TEST(SummaryCompare, HeadlinesHaveShortNamesAndChangesOnePercentRule) {
  const std::pair<std::string_view, std::string_view> names[] = {
      {"latency.ttft_s.p50", "TTFT p50"},  {"latency.tpot_s.p99", "TPOT p99"},
      {"peak_bytes_per_level.q8", "peak q8"}, {"attention_error_exposure", "attention error"},
      {"goodput_rps", "goodput"},          {"preemptions", "preemptions"}};
  for (const auto& [key, name] : names) EXPECT_EQ(headline_name(key), name) << key;
  for (std::string_view key : headline_metric_keys()) {
    EXPECT_EQ(headline_name(key).find('_'), std::string::npos) << key;
  }
  // One decimal under 10 %, none from there (9.96 % rounds to 10).
  const std::pair<double, std::string_view> percents[] = {{0.045, "+4.5 %"}, {-0.18, "-18 %"}, {0.0996, "+10 %"}};
  for (const auto& [relative, text] : percents) EXPECT_EQ(percent_change(relative), text) << relative;
}

}  // namespace
}  // namespace kvscope
