#pragma once
// The generators' randomness, written out here rather than taken from <random>: the standard
// distributions differ between standard libraries, and a seeded load must be the same everywhere.
#include <cstdint>

namespace kvscope {

// SplitMix64 step (Steele, Lea, Flood 2014): a good 64-bit mixer for seeds and hashes.
constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// xoshiro256** (Blackman, Vigna): fast, 256-bit state. Independent streams of one seed come from
// different `stream` numbers, so changing one distribution of a load leaves the others alone.
class rng {
 public:
  explicit rng(std::uint64_t seed, std::uint64_t stream = 0) noexcept;

  // 64 uniformly random bits.
  std::uint64_t next_u64() noexcept;
  // Uniform in [0, 1), 53 random bits.
  double uniform() noexcept;
  // Uniform in (0, 1): safe to take the logarithm of.
  double uniform_open() noexcept;
  // Uniform integer in [0, n) without modulo bias. Precondition: n > 0.
  std::uint64_t below(std::uint64_t n) noexcept;
  // Standard normal (Box–Muller, one value per call so the state stays simple).
  double normal() noexcept;
  // Gamma with shape k > 0 and scale 1 (Marsaglia–Tsang; k < 1 boosted through k + 1).
  double gamma(double k) noexcept;

 private:
  std::uint64_t s_[4];
};

// Zipf over 1..n with P(i) ∝ i^-s, s > 0, sampled in O(1) by rejection-inversion
// (Hörmann & Derflinger 1996), so n may be large.
class zipf_sampler {
 public:
  // Preconditions: n >= 1, s > 0 and finite.
  zipf_sampler(std::uint64_t n, double s) noexcept;
  std::uint64_t operator()(rng& g) const noexcept;
  std::uint64_t n() const noexcept { return n_; }
  double exponent() const noexcept { return s_; }

 private:
  double h(double x) const noexcept;
  double h_integral(double x) const noexcept;
  double h_integral_inverse(double x) const noexcept;

  std::uint64_t n_;
  double s_;
  double h_integral_x1_;
  double h_integral_n_;
  double sd_;
};

}  // namespace kvscope
