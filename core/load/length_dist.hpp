#pragma once
// Token-length distributions of generated loads: fixed, uniform, lognormal or Zipf.
#include <cstdint>
#include <string>
#include <string_view>

#include "load/random.hpp"
#include "util/expected.hpp"

namespace kvscope {

// Generated lengths are whole numbers in [1, max_generated_tokens].
inline constexpr std::uint32_t max_generated_tokens = 1u << 24;

struct length_dist {
  enum class kind : std::uint8_t { fixed, uniform, lognormal, zipf };
  kind shape = kind::fixed;
  double a = 512;  // fixed: the length; uniform: the mean; lognormal: the median; zipf: exponent s
  double b = 0;    // uniform: range ratio r in [0, 1]; lognormal: sigma; zipf: largest length

  friend bool operator==(const length_dist&, const length_dist&) = default;
};

// Parses "N" or "fixed:N", "uniform:MEAN:RATIO" (whole numbers in [MEAN·(1−r), MEAN·(1+r)]),
// "lognormal:MEDIAN:SIGMA" or "zipf:S:MAX" (P(n) ∝ n^−S over 1..MAX). The error says what is wrong.
expected<length_dist, std::string> parse_length_dist(std::string_view text);

// The spelling parse_length_dist reads back to an equal value.
std::string to_string(const length_dist& d);

// Draws lengths of one distribution.
class length_sampler {
 public:
  explicit length_sampler(const length_dist& d);
  std::uint32_t operator()(rng& g) const;

 private:
  length_dist d_;
  std::uint64_t lo_ = 1, span_ = 1;  // uniform: lo_ + below(span_)
  zipf_sampler zipf_;
};

}  // namespace kvscope
