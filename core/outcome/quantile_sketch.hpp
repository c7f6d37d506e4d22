#pragma once
// A weighted distribution of non-negative values in constant memory, for inter-token latency: a
// long trace has hundreds of millions of token gaps, but one simulated step gives many sequences
// the same gap, so add(value, count) takes a count and costs O(1) whatever the count.
//
// Log-bucketed as DDSketch (Masson, Rim, Lee, VLDB 2019): bucket k holds the values in
// (m·γ^(k-1), m·γ^k] with γ = (1+α)/(1-α) and m = min_value, and reports them as
// 2·m·γ^k/(γ+1), which is within a relative error α of every value in the bucket.
// Bound: for values in [min_value, max_value], quantile(q) is within relative error α of the
// exact numpy-linear percentile of the same (expanded) data, α = relative_accuracy (0.5 % by
// default): each of the two ranks numpy interpolates between is within α, and so is their
// convex combination. Values below min_value (zeros among them) share one bucket reported as
// the smallest value seen, so they are off by less than min_value in absolute terms; values above
// max_value share the top bucket. quantile(0) and quantile(1) are the exact min and max.
// count, sum, mean, min and max are exact (the sum is
// compensated, so its rounding does not grow with the number of adds).
#include <cstdint>
#include <vector>

namespace kvscope {

class quantile_sketch {
 public:
  static constexpr double default_relative_accuracy = 0.005;
  static constexpr double default_min_value = 1e-9;  // 1 ns
  static constexpr double default_max_value = 1e9;   // ~32 years
  // Allocates every bucket now (about 4,150 for the defaults, 33 KB, and 66 KB of the ranges
  // below); add() never allocates.
  // Preconditions: 0 < relative_accuracy < 1, 0 < min_value < max_value, both finite.
  explicit quantile_sketch(double relative_accuracy = default_relative_accuracy,
                           double min_value = default_min_value,
                           double max_value = default_max_value);

  // Records `count` copies of `value`. Precondition: value >= 0 and finite.
  void add(double value, std::uint64_t count = 1) noexcept;
  void clear() noexcept;

  std::uint64_t count() const noexcept { return count_; }
  double sum() const noexcept { return sum_ + sum_error_; }
  // NaN when empty, as are min(), max() and quantile().
  double mean() const noexcept;
  double min() const noexcept;
  double max() const noexcept;
  // numpy-linear quantile, 0 <= q <= 1 (see the bound above). Precondition: count() < 2^63.
  double quantile(double q) const noexcept;

  double relative_accuracy() const noexcept { return alpha_; }
  std::size_t bucket_count() const noexcept { return buckets_.size(); }
  // The bucket `value` belongs in, by definition (with a log), and the weight a bucket holds.
  std::size_t bucket_of(double value) const noexcept;
  std::uint64_t bucket_weight(std::size_t bucket) const noexcept { return buckets_[bucket]; }

 private:
  // bucket_of(value), mostly without its log: a value between two values already seen in a
  // bucket is in it (bucket_of is monotone as far as libm's log is: glibc's is within an ulp of
  // the exact one, and whatever it does the ranges are the same for the same adds, so results
  // stay deterministic), and a cheap estimate of the log says which bucket or its neighbours to
  // try. Only a value outside every range tried takes the log.
  std::size_t locate(double value) noexcept;
  // The reported value of the value with 0-based rank `rank` in sorted order, and of the next.
  void values_at(std::uint64_t rank, double& at, double& next) const noexcept;
  double bucket_value(std::size_t bucket) const noexcept;

  double alpha_, min_value_, log_gamma_, inverse_log_gamma_;
  double log_min_value_;  // log(min_value_), which bucket_of would otherwise take on every add
  // buckets_[0]: values below min_value; buckets_[k + 1]: bucket k of the comment above.
  std::vector<std::uint64_t> buckets_;
  // The smallest and largest value located in each bucket of buckets_ (empty: +inf, -inf). They
  // describe bucket_of, not the data: clear() keeps them.
  std::vector<double> seen_low_, seen_high_;
  std::uint64_t count_ = 0;
  double sum_ = 0, sum_error_ = 0;  // Neumaier compensated sum
  double min_ = 0, max_ = 0;        // meaningful when count_ > 0
};

}  // namespace kvscope
