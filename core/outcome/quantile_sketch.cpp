#include "outcome/quantile_sketch.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

#include "outcome/exact_stats.hpp"

namespace kvscope {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

}  // namespace

quantile_sketch::quantile_sketch(double relative_accuracy, double min_value, double max_value)
    : alpha_(relative_accuracy),
      min_value_(min_value),
      log_gamma_(std::log((1 + relative_accuracy) / (1 - relative_accuracy))),
      inverse_log_gamma_(1 / log_gamma_),
      log_min_value_(std::log(min_value)) {
  assert(relative_accuracy > 0 && relative_accuracy < 1);
  assert(min_value > 0 && min_value < max_value && std::isfinite(max_value));
  const auto top = static_cast<std::size_t>(std::ceil(std::log(max_value / min_value) *
                                                      inverse_log_gamma_));
  buckets_.assign(top + 2, 0);
  seen_low_.assign(buckets_.size(), std::numeric_limits<double>::infinity());
  seen_high_.assign(buckets_.size(), -std::numeric_limits<double>::infinity());
}

std::size_t quantile_sketch::bucket_of(double value) const noexcept {
  if (value < min_value_) return 0;
  // log(value) - log(min) rather than log(value / min): the quotient may overflow.
  const double k = std::ceil((std::log(value) - log_min_value_) * inverse_log_gamma_);
  const auto top = static_cast<double>(buckets_.size() - 2);
  return static_cast<std::size_t>(std::min(k, top)) + 1;
}

namespace {

// ln(x) for a normal, positive, finite x within 1.4e-4: x = 2^e m, m in [1, 2), and
// ln m = 2 atanh(t), t = (m - 1) / (m + 1) < 1/3, to its t^5 term (the rest is below 2 t^7 / 7).
double rough_log(double x) noexcept {
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const auto e = static_cast<std::int64_t>(bits >> 52) - 1023;
  const double m = std::bit_cast<double>((bits & 0x000F'FFFF'FFFF'FFFFull) | 0x3FF0'0000'0000'0000ull);
  const double t = (m - 1) / (m + 1), t2 = t * t;
  return static_cast<double>(e) * std::numbers::ln2 + 2 * t * (1 + t2 * (1.0 / 3 + t2 * (1.0 / 5)));
}

}  // namespace

std::size_t quantile_sketch::locate(double value) noexcept {
  if (value < min_value_) return 0;
  // The estimate is within 1.4e-4 of the log, far less than a bucket's width (log γ, 0.01 at the
  // default accuracy): the bucket is the guess, ceil(g) + 1 (trunc(g) + 2 but for whole g, whose
  // bucket is then the one beside), or one beside it. Bucket 0's range stays empty.
  const std::size_t last = buckets_.size() - 1;
  const double g = (rough_log(value) - log_min_value_) * inverse_log_gamma_;
  const std::size_t guess = g <= 0 ? 1 : std::min(static_cast<std::size_t>(std::min(g, 1e18)) + 2, last);
  const auto seen = [&](std::size_t b) { return seen_low_[b] <= value && value <= seen_high_[b]; };
  if (seen(guess)) return guess;
  if (seen(guess - 1)) return guess - 1;
  if (guess < last && seen(guess + 1)) return guess + 1;
  const std::size_t b = bucket_of(value);
  seen_low_[b] = std::min(seen_low_[b], value);
  seen_high_[b] = std::max(seen_high_[b], value);
  return b;
}

void quantile_sketch::add(double value, std::uint64_t count) noexcept {
  assert(value >= 0 && std::isfinite(value));
  if (count == 0) return;
  buckets_[locate(value)] += count;
  if (count_ == 0) {
    min_ = max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  count_ += count;
  // Neumaier summation: hundreds of millions of adds would otherwise drift the mean.
  const double x = value * static_cast<double>(count);
  const double t = sum_ + x;
  sum_error_ += std::abs(sum_) >= std::abs(x) ? (sum_ - t) + x : (x - t) + sum_;
  sum_ = t;
}

void quantile_sketch::clear() noexcept {
  std::fill(buckets_.begin(), buckets_.end(), 0);
  count_ = 0;
  sum_ = sum_error_ = min_ = max_ = 0;
}

double quantile_sketch::mean() const noexcept {
  return count_ == 0 ? nan : sum() / static_cast<double>(count_);
}
double quantile_sketch::min() const noexcept { return count_ == 0 ? nan : min_; }
double quantile_sketch::max() const noexcept { return count_ == 0 ? nan : max_; }

double quantile_sketch::bucket_value(std::size_t bucket) const noexcept {
  // The values below min_value are reported as the smallest one seen (exact when all are 0).
  if (bucket == 0) return min_;
  // 2·m·γ^k/(γ+1) = m·γ^k·(1-α); clamping to the exact extremes can only bring it closer.
  const double k = static_cast<double>(bucket - 1);
  const double v = std::exp(log_min_value_ + k * log_gamma_) * (1 - alpha_);
  return std::clamp(v, min_, max_);
}

void quantile_sketch::values_at(std::uint64_t rank, double& at, double& next) const noexcept {
  std::uint64_t seen = 0;
  std::size_t b = 0;
  for (; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen > rank) break;
  }
  at = bucket_value(b);
  next = at;
  if (seen > rank + 1 || rank + 1 >= count_) return;
  for (++b; b < buckets_.size(); ++b) {
    if (buckets_[b] != 0) {
      next = bucket_value(b);
      return;
    }
  }
}

double quantile_sketch::quantile(double q) const noexcept {
  assert(q >= 0 && q <= 1);
  if (count_ == 0) return nan;
  // The same virtual index as numpy's linear method (see linear_percentile).
  const double h = static_cast<double>(count_) * q + (1 + q * -1.0) - 1;
  const double below = std::clamp(std::floor(h), 0.0, static_cast<double>(count_ - 1));
  const auto rank = static_cast<std::uint64_t>(below);
  double at = 0, next = 0;
  values_at(rank, at, next);
  // The first and last ranks are the exact min and max: p0 and p100 need no estimate.
  if (rank == 0) at = min_;
  if (rank + 1 >= count_ - 1) next = max_;
  if (rank == count_ - 1) at = max_;
  return numpy_lerp(at, next, h - below);
}

}  // namespace kvscope
