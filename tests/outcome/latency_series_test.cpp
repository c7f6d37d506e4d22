// Latency over time: windows by finish time, exact percentiles per window and over the run,
// goodput and misses by cause per window, on hand-computed cases.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "outcome/latency_series.hpp"
#include "outcome/request_miss.hpp"
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
  // The same requests through request_outcomes: the series' whole-run percentiles, good
  // count and misses by cause are the summary's, bit for bit.
  const slo_spec slo{0.3, 0.05, std::nullopt};
  latency_series_builder b(slo);
  request_outcomes o([&b](const request_record& r) { b.add(r); });
  o.set_slo(slo);
  for (int i = 0; i < 40; ++i) {
    const double t0 = 0.1 * i;
    const request_handle h = o.arrived(static_cast<std::uint64_t>(i), t0, 10, 3);
    o.scheduled(h, t0 + 0.01 * (i % 7));
    o.emitted(h, t0 + 0.05 + 0.013 * (i % 11));
    o.emitted(h, t0 + 0.3 + 0.017 * (i % 5));
    o.emitted(h, t0 + 0.4 + 0.031 * (i % 3));
    o.finished(h, t0 + 0.4 + 0.031 * (i % 3));
  }
  o.rejected(o.arrived(40, 2.0, 10, 3), 2.0, "too long");  // a miss with no latency
  const outcome_summary summary = o.summary(5.0);
  const latency_series s = b.build(latency_window_for(b.last_finish_s()));
  EXPECT_EQ(s.finished, summary.finished);
  EXPECT_EQ(s.good, summary.good);
  EXPECT_EQ(s.ttft_s.p99, summary.latency.ttft_s.p99);
  EXPECT_EQ(s.ttft_s.p50, summary.latency.ttft_s.p50);
  EXPECT_EQ(s.tpot_s.p99, summary.latency.tpot_s.p99);
  EXPECT_EQ(s.tpot_s.mean, summary.latency.tpot_s.mean);
  EXPECT_EQ(s.missed, summary.misses.requests);
  EXPECT_EQ(s.missed_total(), summary.misses.missed);
  EXPECT_GT(s.missed_total(), 0u) << "the SLO should fail some requests";
  std::uint64_t in_windows = 0;
  for (const latency_window& w : s.windows) in_windows += w.finished;
  EXPECT_EQ(in_windows, 40u);
}

// Misses by cause per window. The records are made so each one's cause is plain from its parts.
constexpr std::size_t cause_index(miss_cause c) { return static_cast<std::size_t>(c); }

// A request finishing at `finish_s` with these latencies whose time went to `wait_s` of KV-memory
// wait before its first token and `interference_s` of others' prefill chunks after it.
request_record missing_series_record(double finish_s, double ttft_s, double tpot_s, double wait_s,
                                     double interference_s) {
  request_record r = finished(finish_s, ttft_s, tpot_s);
  r.parts.wait_kv_memory_s = wait_s;
  r.parts.prefill_s = ttft_s - wait_s;
  r.parts.decode_prefill_s = interference_s;
  r.parts.decode_s = tpot_s - interference_s;
  r.alone_ttft_s = 0.05;
  r.alone_tpot_s = 0.01;
  return r;
}

TEST(LatencySeriesMisses, EachWindowCountsItsMissesByDominantCause) {
  const slo_spec slo{0.5, 0.05, std::nullopt};
  latency_series_builder b(slo);
  // [0, 1): a TTFT miss from memory, a TPOT miss from prefill chunks, one that met both.
  b.add(missing_series_record(0.2, 0.9, 0.02, 0.8, 0));
  b.add(missing_series_record(0.4, 0.1, 0.09, 0, 0.07));
  b.add(missing_series_record(0.6, 0.1, 0.02, 0, 0));
  // [1, 2): nothing. [2, 3): one that would miss even alone, and a rejection.
  request_record hopeless = missing_series_record(2.5, 0.9, 0.02, 0.8, 0);
  hopeless.alone_ttft_s = 0.7;
  b.add(hopeless);
  request_record refused;
  refused.outcome = request_outcome::rejected;
  refused.finish_s = 2.9;
  b.add(refused);
  // [3, 4): only a rejection, after the last finish: its window is there too.
  refused.finish_s = 3.1;
  b.add(refused);

  const latency_series s = b.build(1.0);
  ASSERT_EQ(s.windows.size(), 4u);
  std::array<std::uint64_t, miss_cause_count> first{};
  first[cause_index(miss_cause::kv_memory)] = 1;
  first[cause_index(miss_cause::prefill_interference)] = 1;
  EXPECT_EQ(s.windows[0].missed, first);
  EXPECT_EQ(s.windows[0].missed_total(), 2u);
  EXPECT_EQ(s.windows[1].missed_total(), 0u);
  EXPECT_EQ(s.windows[2].missed[cause_index(miss_cause::infeasible_alone)], 1u);
  EXPECT_EQ(s.windows[2].missed[cause_index(miss_cause::rejected)], 1u);
  EXPECT_EQ(s.windows[2].missed_total(), 2u);
  EXPECT_EQ(s.windows[3].missed[cause_index(miss_cause::rejected)], 1u);
  EXPECT_EQ(s.windows[3].finished, 0u);
  // Over the run: finished misses are those not good, plus every rejection.
  EXPECT_EQ(s.missed[cause_index(miss_cause::rejected)], 2u);
  EXPECT_EQ(s.missed_total(), s.finished - s.good + 2);
  // A window's misses are each exactly the request's own dominant_cause.
  const request_record tpot_miss = missing_series_record(0.4, 0.1, 0.09, 0, 0.07);
  EXPECT_EQ(miss_cause_of(slo, tpot_miss), miss_cause::prefill_interference);
  EXPECT_EQ(miss_cause_of(slo, missing_series_record(0.6, 0.1, 0.02, 0, 0)), std::nullopt);
}

TEST(LatencySeriesMisses, WithoutAnSloNothingMisses) {
  latency_series_builder b;
  b.add(missing_series_record(0.2, 0.9, 0.02, 0.8, 0));
  request_record refused;
  refused.outcome = request_outcome::rejected;
  refused.finish_s = 0.5;
  b.add(refused);
  const latency_series s = b.build(1.0);
  ASSERT_EQ(s.windows.size(), 1u);
  EXPECT_EQ(s.windows[0].missed_total(), 0u);
  EXPECT_EQ(s.missed_total(), 0u);
  EXPECT_EQ(miss_cause_of({}, refused), std::nullopt);
  EXPECT_EQ(miss_cause_of({0.5, std::nullopt, std::nullopt}, refused), miss_cause::rejected);
}

}  // namespace
}  // namespace kvscope
