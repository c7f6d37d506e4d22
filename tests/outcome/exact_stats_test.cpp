// numpy's default (linear) percentiles, hand-computed.
#include <gtest/gtest.h>

#include <cmath>

#include "outcome/exact_stats.hpp"

namespace kvscope {
namespace {

TEST(LinearPercentile, InterpolatesBetweenRanksAsNumpyDoes) {
  const std::vector<double> v{1, 2, 3, 4};
  EXPECT_EQ(linear_percentile(v, 0), 1.0);
  EXPECT_EQ(linear_percentile(v, 50), 2.5);  // h = 1.5
  EXPECT_DOUBLE_EQ(linear_percentile(v, 90), 3.7);   // h = 2.7
  EXPECT_DOUBLE_EQ(linear_percentile(v, 99), 3.97);  // h = 2.97
  EXPECT_EQ(linear_percentile(v, 100), 4.0);
  EXPECT_DOUBLE_EQ(linear_percentile(v, 25), 1.75);  // h = 0.75
}

TEST(LinearPercentile, OneSampleAndNone) {
  const std::vector<double> one{5};
  EXPECT_EQ(linear_percentile(one, 0), 5.0);
  EXPECT_EQ(linear_percentile(one, 99), 5.0);
  EXPECT_TRUE(std::isnan(linear_percentile({}, 50)));
}

TEST(NumpyLerp, EndsAreExact) {
  EXPECT_EQ(numpy_lerp(0.1, 0.7, 0), 0.1);
  EXPECT_EQ(numpy_lerp(0.1, 0.7, 1), 0.7);
  EXPECT_EQ(numpy_lerp(2, 4, 0.25), 2.5);
  EXPECT_EQ(numpy_lerp(2, 4, 0.75), 3.5);
}

TEST(ExactStats, DropsUndefinedSamples) {
  const double nan = std::nan("");
  std::vector<double> v{3, nan, 1, 2, nan};
  const latency_stats s = exact_stats(v);
  EXPECT_EQ(s.mean, 2.0);
  EXPECT_EQ(s.p50, 2.0);
  EXPECT_DOUBLE_EQ(s.p90, 2.8);   // h = 1.8 between 2 and 3
  EXPECT_DOUBLE_EQ(s.p99, 2.98);  // h = 1.98
  EXPECT_EQ(s.max, 3.0);
}

TEST(ExactStats, NoSamplesIsNaNNotZero) {
  std::vector<double> v{std::nan("")};
  const latency_stats s = exact_stats(v);
  EXPECT_TRUE(std::isnan(s.mean));
  EXPECT_TRUE(std::isnan(s.p50));
  EXPECT_TRUE(std::isnan(s.p90));
  EXPECT_TRUE(std::isnan(s.p99));
  EXPECT_TRUE(std::isnan(s.max));
}

}  // namespace
}  // namespace kvscope
