// Latency over time: windows by finish time, exact percentiles per window and over the run,
// goodput per window, on hand-computed cases.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "outcome/latency_series.hpp"
#include "outcome/request_outcomes.hpp"

namespace kvscope {
namespace {

// A request finishing at `finish_s` whose times give these latencies (to rounding: a record
// computes its latencies from its times); two output tokens, or one when TPOT is NaN.
request_record finished(double finish_s, double ttft_s, double tpot_s) {
  request_record r;
  r.finish_s = finish_s;
  r.output_tokens = std::isnan(tpot_s) ? 1 : 2;
  r.first_token_s = std::isnan(tpot_s) ? finish_s : finish_s - tpot_s;
  r.arrival_s = r.first_token_s - ttft_s;
  return r;
}

constexpr double rounding = 1e-12;

TEST(LatencyWindowFor, OneTwoFiveStepsWithinTheWindowCount) {
  EXPECT_DOUBLE_EQ(latency_window_for(59, 60), 1);    // windows 0..59
  EXPECT_DOUBLE_EQ(latency_window_for(60, 60), 2);    // 60 would open a 61st window of 1 s
  EXPECT_DOUBLE_EQ(latency_window_for(250, 60), 5);   // 51 windows of 5 s
  EXPECT_DOUBLE_EQ(latency_window_for(1000, 60), 20);
  EXPECT_DOUBLE_EQ(latency_window_for(0, 60), 0.001);
  EXPECT_DOUBLE_EQ(latency_window_for(0.5, 10), 0.1);  // 0.05 would give 11 windows
  // No width fits these: the search used to loop for ever on an infinite duration.
  EXPECT_DOUBLE_EQ(latency_window_for(INFINITY, 60), 0.001);
  EXPECT_DOUBLE_EQ(latency_window_for(NAN, 60), 0.001);
  EXPECT_DOUBLE_EQ(latency_window_for(-1, 60), 0.001);
  EXPECT_GT(latency_window_for(1e300, 60), 1e298);  // the largest finite durations end too
}

TEST(LatencySeries, WindowsByFinishTimeWithPercentilesAndGoodput) {
  latency_series_builder b(slo_spec{0.5, std::nullopt, std::nullopt});
  // Window [0, 2): TTFT 0.1, 0.3, 0.9 (two meet 0.5). Window [2, 4): none. Window [4, 6): 0.2.
  b.add(finished(0.5, 0.1, 0.01));
  b.add(finished(1.9, 0.9, 0.03));
  b.add(finished(1.0, 0.3, std::nan("")));  // one output token: no TPOT
  b.add(finished(4.0, 0.2, 0.02));
  request_record rejected = finished(3.0, 0.1, 0.1);
  rejected.outcome = request_outcome::rejected;
  b.add(rejected);
  EXPECT_EQ(b.finished(), 4u);
  EXPECT_DOUBLE_EQ(b.last_finish_s(), 4.0);

  const latency_series s = b.build(2.0);
  EXPECT_EQ(s.window_s, 2.0);
  ASSERT_EQ(s.windows.size(), 3u);
  EXPECT_EQ(s.windows[0].start_s, 0.0);
  EXPECT_EQ(s.windows[2].start_s, 4.0);
  EXPECT_EQ(s.windows[0].finished, 3u);
  EXPECT_EQ(s.windows[0].good, 2u);
  EXPECT_DOUBLE_EQ(s.windows[0].goodput_rps, 1.0);
  // numpy: p50 of {0.1, 0.3, 0.9} is 0.3; p99 at index 1.98: 0.3 + 0.98·0.6.
  EXPECT_NEAR(s.windows[0].ttft_s.p50, 0.3, rounding);
  EXPECT_NEAR(s.windows[0].ttft_s.p99, 0.888, rounding);
  EXPECT_NEAR(s.windows[0].tpot_s.p50, 0.02, rounding);  // of {0.01, 0.03}: NaN dropped
  EXPECT_EQ(s.windows[1].finished, 0u);
  EXPECT_EQ(s.windows[1].goodput_rps, 0.0);
  EXPECT_TRUE(std::isnan(s.windows[1].ttft_s.p50));
  EXPECT_EQ(s.windows[2].good, 1u);
  EXPECT_NEAR(s.windows[2].ttft_s.p99, 0.2, rounding);
  EXPECT_EQ(s.finished, 4u);
  EXPECT_EQ(s.good, 3u);
  EXPECT_NEAR(s.ttft_s.p50, 0.25, rounding);  // of {0.1, 0.2, 0.3, 0.9}
  EXPECT_NEAR(s.ttft_s.max, 0.9, rounding);
  EXPECT_NEAR(s.tpot_s.max, 0.03, rounding);
}

TEST(LatencySeries, EmptyHasNoWindowsAndNaNStatistics) {
  const latency_series s = latency_series_builder{}.build(1.0);
  EXPECT_TRUE(s.windows.empty());
  EXPECT_TRUE(std::isnan(s.ttft_s.p99));
  EXPECT_EQ(s.finished, 0u);
}

TEST(LatencySeries, WithoutAnSloEveryFinishedRequestIsGood) {
  latency_series_builder b;
  b.add(finished(0.1, 5, 5));
  b.add(finished(0.2, 50, 50));
  const latency_series s = b.build(0.5);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.windows[0].good, 2u);
  EXPECT_DOUBLE_EQ(s.windows[0].goodput_rps, 4.0);
}

TEST(LatencySeries, WholeRunEqualsTheTrackersSummary) {
  // The same requests through request_outcomes: the series' whole-run percentiles and good
  // count are the summary's, bit for bit.
  const slo_spec slo{0.3, 0.05, std::nullopt};
  latency_series_builder b(slo);
  request_outcomes o([&b](const request_record& r) { b.add(r); });
  for (int i = 0; i < 40; ++i) {
    const double t0 = 0.1 * i;
    const request_handle h = o.arrived(static_cast<std::uint64_t>(i), t0, 10, 3);
    o.scheduled(h, t0 + 0.01 * (i % 7));
    o.emitted(h, t0 + 0.05 + 0.013 * (i % 11));
    o.emitted(h, t0 + 0.3 + 0.017 * (i % 5));
    o.emitted(h, t0 + 0.4 + 0.031 * (i % 3));
    o.finished(h, t0 + 0.4 + 0.031 * (i % 3));
  }
  const outcome_summary summary = o.summary(5.0, slo);
  const latency_series s = b.build(latency_window_for(b.last_finish_s()));
  EXPECT_EQ(s.finished, summary.finished);
  EXPECT_EQ(s.good, summary.good);
  EXPECT_EQ(s.ttft_s.p99, summary.latency.ttft_s.p99);
  EXPECT_EQ(s.ttft_s.p50, summary.latency.ttft_s.p50);
  EXPECT_EQ(s.tpot_s.p99, summary.latency.tpot_s.p99);
  EXPECT_EQ(s.tpot_s.mean, summary.latency.tpot_s.mean);
  std::uint64_t in_windows = 0;
  for (const latency_window& w : s.windows) in_windows += w.finished;
  EXPECT_EQ(in_windows, 40u);
}

}  // namespace
}  // namespace kvscope
