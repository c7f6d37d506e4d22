#include "outcome/exact_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kvscope {

double numpy_lerp(double a, double b, double t) noexcept {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

double linear_percentile(std::span<const double> sorted, double p) noexcept {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  // numpy: q = p / 100, virtual index = n·q + (1 + q·(1 - 1 - 1)) - 1, i.e. (n-1)·q, written the
  // same way so the rounding is the same.
  const double q = p / 100;
  const double n = static_cast<double>(sorted.size());
  const double h = n * q + (1 + q * -1.0) - 1;
  const double below = std::floor(h);
  const std::size_t last = sorted.size() - 1;
  const auto clamp_index = [last](double i) {
    return i <= 0 ? std::size_t{0} : std::min(last, static_cast<std::size_t>(i));
  };
  return numpy_lerp(sorted[clamp_index(below)], sorted[clamp_index(below + 1)], h - below);
}

latency_stats exact_stats(std::vector<double>& samples) {
  std::erase_if(samples, [](double v) { return std::isnan(v); });
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (samples.empty()) return {nan, nan, nan, nan, nan};
  std::sort(samples.begin(), samples.end());
  double sum = 0;
  for (const double v : samples) sum += v;
  return {sum / static_cast<double>(samples.size()), linear_percentile(samples, 50),
          linear_percentile(samples, 90), linear_percentile(samples, 99), samples.back()};
}

}  // namespace kvscope
