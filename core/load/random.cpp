#include "load/random.hpp"

#include <cassert>
#include <cmath>
#include <numbers>

namespace kvscope {
namespace {

constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }

// log1p(x)/x and expm1(x)/x, continuous at 0 (the Zipf sampler divides by them near s = 1).
double log1p_over_x(double x) noexcept {
  return std::abs(x) > 1e-8 ? std::log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
}
double expm1_over_x(double x) noexcept {
  return std::abs(x) > 1e-8 ? std::expm1(x) / x
                            : 1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x));
}

}  // namespace

rng::rng(std::uint64_t seed, std::uint64_t stream) noexcept {
  // Mixing the stream in before SplitMix seeding keeps streams of nearby seeds unrelated.
  std::uint64_t x = splitmix64(seed) ^ splitmix64(stream * 0xd1b54a32d192ed03ULL + 1);
  for (auto& word : s_) {
    x += 0x9e3779b97f4a7c15ULL;
    word = splitmix64(x);
  }
}

std::uint64_t rng::next_u64() noexcept {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double rng::uniform() noexcept {
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

double rng::uniform_open() noexcept {
  return (static_cast<double>(next_u64() >> 11) + 0.5) * 0x1.0p-53;
}

std::uint64_t rng::below(std::uint64_t n) noexcept {
  assert(n > 0);
  // Reject the few values that would make x % n favour small results (arc4random_uniform's way).
  const std::uint64_t threshold = (0 - n) % n;
  for (;;) {
    const std::uint64_t x = next_u64();
    if (x >= threshold) return x % n;
  }
}

double rng::normal() noexcept {
  const double u1 = uniform_open();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double rng::gamma(double k) noexcept {
  assert(k > 0);
  if (k < 1) {
    // Gamma(k) = Gamma(k + 1) · U^(1/k) (Marsaglia–Tsang's boost for small shapes).
    const double g = gamma(k + 1);
    return g * std::pow(uniform_open(), 1.0 / k);
  }
  const double d = k - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = normal();
    double v = 1.0 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = uniform_open();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return d * v;
    if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v;
  }
}

zipf_sampler::zipf_sampler(std::uint64_t n, double s) noexcept : n_(n), s_(s) {
  assert(n >= 1 && s > 0);
  h_integral_x1_ = h_integral(1.5) - 1.0;
  h_integral_n_ = h_integral(static_cast<double>(n) + 0.5);
  sd_ = 2.0 - h_integral_inverse(h_integral(2.5) - h(2.0));
}

double zipf_sampler::h(double x) const noexcept { return std::exp(-s_ * std::log(x)); }

double zipf_sampler::h_integral(double x) const noexcept {
  const double log_x = std::log(x);
  return expm1_over_x((1.0 - s_) * log_x) * log_x;
}

double zipf_sampler::h_integral_inverse(double x) const noexcept {
  double t = x * (1.0 - s_);
  if (t < -1.0) t = -1.0;  // rounding can push it just past the domain of log1p
  return std::exp(log1p_over_x(t) * x);
}

std::uint64_t zipf_sampler::operator()(rng& g) const noexcept {
  for (;;) {
    const double u = h_integral_n_ + g.uniform() * (h_integral_x1_ - h_integral_n_);
    const double x = h_integral_inverse(u);
    double k = std::floor(x + 0.5);
    if (k < 1) k = 1;
    if (k > static_cast<double>(n_)) k = static_cast<double>(n_);
    if (k - x <= sd_ || u >= h_integral(k + 0.5) - h(k)) return static_cast<std::uint64_t>(k);
  }
}

}  // namespace kvscope
