// The sketch against exact numpy-linear percentiles of the same data: the relative-error bound on
// seeded random data, with weights, zeros and huge counts; exact count, sum, min and max.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "load/random.hpp"
#include "outcome/exact_stats.hpp"
#include "outcome/quantile_sketch.hpp"

namespace kvscope {
namespace {

constexpr double qs[] = {0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1};

// Every quantile of the sketch within its relative error of the exact one over `expanded`.
void expect_within_bound(const quantile_sketch& s, std::vector<double> expanded) {
  std::sort(expanded.begin(), expanded.end());
  // The bound itself, plus room for rounding in log() and exp() at bucket edges.
  const double bound = s.relative_accuracy() * (1 + 1e-9);
  for (const double q : qs) {
    const double exact = linear_percentile(expanded, q * 100);
    const double got = s.quantile(q);
    EXPECT_LE(std::abs(got - exact), bound * exact) << "q=" << q << " exact=" << exact;
  }
  EXPECT_EQ(s.quantile(0), expanded.front());
  EXPECT_EQ(s.quantile(1), expanded.back());
  EXPECT_EQ(s.count(), expanded.size());
  EXPECT_EQ(s.min(), expanded.front());
  EXPECT_EQ(s.max(), expanded.back());
}

// Log-normal-ish gaps spanning about six decades (1 µs to 1 s and beyond).
double random_gap(rng& g) { return std::exp(g.normal() * 2.5 - 5); }

TEST(QuantileSketch, EmptyIsNaN) {
  const quantile_sketch s;
  EXPECT_EQ(s.count(), 0u);
  EXPECT_EQ(s.sum(), 0.0);
  EXPECT_TRUE(std::isnan(s.mean()));
  EXPECT_TRUE(std::isnan(s.min()));
  EXPECT_TRUE(std::isnan(s.max()));
  EXPECT_TRUE(std::isnan(s.quantile(0.5)));
}

TEST(QuantileSketch, OneValueIsExact) {
  quantile_sketch s;
  s.add(0.123, 5);
  for (const double q : qs) EXPECT_EQ(s.quantile(q), 0.123);
  EXPECT_EQ(s.count(), 5u);
  EXPECT_DOUBLE_EQ(s.mean(), 0.123);
}

TEST(QuantileSketch, DefaultBoundIsHalfAPercentInConstantMemory) {
  const quantile_sketch s;
  EXPECT_EQ(s.relative_accuracy(), 0.005);
  // ln(1e9 / 1e-9) / ln(1.005 / 0.995) = 4145 buckets, plus the zero bucket and bucket 0.
  EXPECT_EQ(s.bucket_count(), 4147u);
}

TEST(QuantileSketch, BoundHoldsOnRandomData) {
  rng g(20240611);
  quantile_sketch s;
  std::vector<double> expanded;
  for (int i = 0; i < 200'000; ++i) {
    const double v = random_gap(g);
    s.add(v);
    expanded.push_back(v);
  }
  expect_within_bound(s, expanded);
}

TEST(QuantileSketch, BoundHoldsWithWeightsAndZeros) {
  rng g(7);
  quantile_sketch s;
  std::vector<double> expanded;
  for (int i = 0; i < 20'000; ++i) {
    // A third of the adds are zero gaps (tokens of one step), the rest random; counts 1..64.
    const double v = g.below(3) == 0 ? 0.0 : random_gap(g);
    const std::uint64_t count = 1 + g.below(64);
    s.add(v, count);
    expanded.insert(expanded.end(), count, v);
  }
  expect_within_bound(s, expanded);
  EXPECT_EQ(s.quantile(0), 0.0);
}

TEST(QuantileSketch, BoundHoldsForOtherAccuracies) {
  for (const double alpha : {0.0001, 0.01, 0.05}) {
    rng g(99);
    quantile_sketch s(alpha);
    std::vector<double> expanded;
    for (int i = 0; i < 50'000; ++i) {
      const double v = random_gap(g);
      s.add(v);
      expanded.push_back(v);
    }
    SCOPED_TRACE(alpha);
    expect_within_bound(s, expanded);
  }
}

TEST(QuantileSketch, HugeCountsAreO1AndExact) {
  quantile_sketch s;
  s.add(0.01, 1'000'000'000'000);
  s.add(0.02, 3'000'000'000'000);
  s.add(5.0, 1);
  EXPECT_EQ(s.count(), 4'000'000'000'001u);
  // Ranks 0 .. 1e12-1 hold 0.01, the next 3e12 hold 0.02, the last one 5.
  EXPECT_NEAR(s.quantile(0.1), 0.01, 0.01 * 0.005);   // rank 4e11
  EXPECT_NEAR(s.quantile(0.5), 0.02, 0.02 * 0.005);   // rank 2e12
  EXPECT_NEAR(s.quantile(0.99), 0.02, 0.02 * 0.005);  // rank 3.96e12
  EXPECT_EQ(s.quantile(1), 5.0);
  EXPECT_EQ(s.max(), 5.0);
  EXPECT_EQ(s.min(), 0.01);
  EXPECT_DOUBLE_EQ(s.sum(), 1e10 + 6e10 + 5);
  EXPECT_DOUBLE_EQ(s.mean(), (1e10 + 6e10 + 5) / 4'000'000'000'001.0);
}

TEST(QuantileSketch, SumIsCompensated) {
  quantile_sketch s;
  s.add(1e16);
  // Each 1.0 alone is lost when added to 1e16 (its spacing is 2); together they are not.
  for (int i = 0; i < 10; ++i) s.add(1.0);
  EXPECT_EQ(s.sum(), 1e16 + 10);
}

TEST(QuantileSketch, TinyValuesAreOffByLessThanMinValue) {
  quantile_sketch s;
  s.add(0.0, 10);
  s.add(3e-10, 10);
  s.add(1e-3, 10);
  EXPECT_EQ(s.quantile(0), 0.0);
  EXPECT_LT(std::abs(s.quantile(0.5) - 3e-10), quantile_sketch::default_min_value);
  EXPECT_NEAR(s.quantile(0.9), 1e-3, 1e-3 * 0.005);
  EXPECT_EQ(s.quantile(1), 1e-3);  // the last rank is the exact max
}

// add() finds most buckets without a log (from the ranges of values seen); every value must
// still land where bucket_of puts it: near bucket edges, in clusters, across clear(), and at
// both ends of the range, for the default and a coarser accuracy.
TEST(QuantileSketch, EveryValueLandsInItsBucket) {
  for (const double accuracy : {quantile_sketch::default_relative_accuracy, 0.02}) {
    quantile_sketch s(accuracy);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> exponent(-9.5, 9.5), jitter(-1e-6, 1e-6);
    std::vector<double> values;
    for (int i = 0; i < 20000; ++i) values.push_back(std::pow(10.0, exponent(rng)));
    for (int i = 0; i < 20000; ++i) values.push_back(0.012 * (1 + 0.3 * jitter(rng) * 1e6));
    const double gamma = (1 + accuracy) / (1 - accuracy);
    for (int k = -50; k < 50; ++k) {  // edges: m·γ^k and the doubles beside it
      const double edge = quantile_sketch::default_min_value * std::pow(gamma, 1800 + k);
      for (const double v : {edge, std::nextafter(edge, 0.0), std::nextafter(edge, 1e300)}) values.push_back(v);
    }
    for (const double v : {0.0, 1e-12, quantile_sketch::default_min_value, 1e9, 1e12}) values.push_back(v);
    for (int pass = 0; pass < 2; ++pass) {
      for (const double v : values) {
        const std::size_t b = s.bucket_of(v);
        const std::uint64_t before = s.bucket_weight(b);
        s.add(v);
        ASSERT_EQ(s.bucket_weight(b), before + 1) << v;
      }
      s.clear();
      std::shuffle(values.begin(), values.end(), rng);
    }
  }
}

TEST(QuantileSketch, ClearForgetsEverything) {
  quantile_sketch s;
  s.add(2.0, 3);
  s.clear();
  EXPECT_EQ(s.count(), 0u);
  EXPECT_EQ(s.sum(), 0.0);
  EXPECT_TRUE(std::isnan(s.quantile(0.5)));
  s.add(4.0);
  EXPECT_EQ(s.quantile(0), 4.0);
}

}  // namespace
}  // namespace kvscope
