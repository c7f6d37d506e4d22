// Percentiles of per-request samples: exact up to the limit, then from sketches within 0.5 %.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "outcome/latency_samples.hpp"

namespace kvscope {
namespace {

// A skewed spread of latencies (50 ms .. ~5 s), every third TPOT undefined.
struct sample_set {
  std::vector<double> ttft, tpot, e2e, queue;
  explicit sample_set(int n) {
    for (int i = 0; i < n; ++i) {
      const double x = static_cast<double>((i * 7919) % n) / n;
      ttft.push_back(0.05 * std::exp(4.6 * x));
      tpot.push_back(i % 3 == 0 ? NAN : 0.01 + 0.04 * x * x);
      e2e.push_back(ttft.back() + 2.0 * x);
      queue.push_back(i % 5 == 0 ? 0.0 : 0.5 * x);
    }
  }
  void add_to(latency_samples& s) const {
    for (std::size_t i = 0; i < ttft.size(); ++i) s.add(ttft[i], tpot[i], e2e[i], queue[i]);
  }
};

void expect_within(const latency_stats& got, std::vector<double> samples, double rel) {
  const latency_stats want = exact_stats(samples);
  EXPECT_NEAR(got.mean, want.mean, rel * want.mean);
  EXPECT_NEAR(got.p50, want.p50, rel * want.p50);
  EXPECT_NEAR(got.p90, want.p90, rel * want.p90);
  EXPECT_NEAR(got.p99, want.p99, rel * want.p99);
  EXPECT_EQ(got.max, want.max);
}

TEST(LatencySamples, UpToTheLimitEveryStatisticIsExact) {
  const sample_set set(1000);
  latency_samples s(1000);
  set.add_to(s);
  EXPECT_TRUE(s.exact());
  EXPECT_EQ(s.count(), 1000u);
  const request_latency_stats got = s.stats();
  auto ttft = set.ttft, tpot = set.tpot;
  const latency_stats want_ttft = exact_stats(ttft), want_tpot = exact_stats(tpot);
  EXPECT_EQ(got.ttft_s.p99, want_ttft.p99);
  EXPECT_EQ(got.ttft_s.mean, want_ttft.mean);
  EXPECT_EQ(got.tpot_s.p50, want_tpot.p50);
}

TEST(LatencySamples, PastTheLimitThePercentilesComeFromSketchesWithinHalfAPercent) {
  const sample_set set(5000);
  latency_samples s(1000);
  set.add_to(s);
  EXPECT_FALSE(s.exact());
  EXPECT_EQ(s.count(), 5000u);
  const request_latency_stats got = s.stats();
  expect_within(got.ttft_s, set.ttft, 0.005);
  expect_within(got.tpot_s, set.tpot, 0.005);  // undefined TPOTs left out, as exact_stats does
  expect_within(got.e2e_s, set.e2e, 0.005);
  // Zero queue times sit below the sketch's smallest bucket: off by less than 1 ns.
  auto queue = set.queue;
  const latency_stats want = exact_stats(queue);
  EXPECT_NEAR(s.stats().queue_s.p50, want.p50, 0.005 * want.p50);
  EXPECT_NEAR(s.stats().queue_s.mean, want.mean, 1e-12);
}

TEST(LatencySamples, NothingAddedIsNan) {
  const latency_samples s;
  EXPECT_TRUE(std::isnan(s.stats().ttft_s.p50));
  EXPECT_TRUE(std::isnan(s.stats().e2e_s.max));
}

}  // namespace
}  // namespace kvscope
