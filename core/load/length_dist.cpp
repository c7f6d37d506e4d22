#include "load/length_dist.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "load/numbers.hpp"
#include "util/number_text.hpp"

namespace kvscope {
namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = text.find(sep);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// The number in `text`, or a message "<what> 'text' is not a number".
expected<double, std::string> number(std::string_view text, std::string_view what) {
  double v = 0;
  const number_error e = parse_finite(text, v);
  if (e != number_error::none) {
    return unexpected{std::string(what) + " '" + std::string(text) + "' " + std::string(describe(e))};
  }
  return v;
}

std::uint32_t clamp_length(double v) {
  if (!(v >= 1)) return 1;  // also catches NaN
  if (v >= max_generated_tokens) return max_generated_tokens;
  return static_cast<std::uint32_t>(std::llround(v));
}

}  // namespace

expected<length_dist, std::string> parse_length_dist(std::string_view text) {
  const auto parts = split(text, ':');
  const std::string_view name = parts[0];
  const std::string max_text = std::to_string(max_generated_tokens);
  auto want_args = [&](std::size_t n, std::string_view usage) -> std::string {
    if (parts.size() == n + 1) return {};
    return "'" + std::string(text) + "': expected " + std::string(usage);
  };

  constexpr std::string_view known =
      "(fixed:N, uniform:MEAN:RATIO, lognormal:MEDIAN:SIGMA, zipf:S:MAX, or N)";
  const bool bare_number = parts.size() == 1 && !name.empty() &&
                           name.find_first_not_of("0123456789.e+-") == std::string_view::npos;
  length_dist d;
  if (bare_number || name == "fixed") {
    if (!bare_number) {
      if (auto e = want_args(1, "fixed:N"); !e.empty()) return unexpected{e};
    }
    const std::string_view arg = bare_number ? parts[0] : parts[1];
    auto v = number(arg, "length");
    if (!v) return unexpected{v.error()};
    if (*v < 1 || *v > max_generated_tokens || *v != std::floor(*v)) {
      return unexpected{"length '" + std::string(arg) + "' must be a whole number in [1, " +
                        max_text + "]"};
    }
    d.shape = length_dist::kind::fixed;
    d.a = *v;
    return d;
  }
  if (name == "uniform") {
    if (auto e = want_args(2, "uniform:MEAN:RATIO"); !e.empty()) return unexpected{e};
    auto mean = number(parts[1], "mean");
    if (!mean) return unexpected{mean.error()};
    auto ratio = number(parts[2], "range ratio");
    if (!ratio) return unexpected{ratio.error()};
    if (*mean < 1 || *mean > max_generated_tokens) {
      return unexpected{"mean '" + std::string(parts[1]) + "' must be in [1, " + max_text + "]"};
    }
    if (*ratio < 0 || *ratio > 1) {
      return unexpected{"range ratio '" + std::string(parts[2]) + "' must be in [0, 1]"};
    }
    d = {length_dist::kind::uniform, *mean, *ratio};
    return d;
  }
  if (name == "lognormal") {
    if (auto e = want_args(2, "lognormal:MEDIAN:SIGMA"); !e.empty()) return unexpected{e};
    auto median = number(parts[1], "median");
    if (!median) return unexpected{median.error()};
    auto sigma = number(parts[2], "sigma");
    if (!sigma) return unexpected{sigma.error()};
    if (*median < 1 || *median > max_generated_tokens) {
      return unexpected{"median '" + std::string(parts[1]) + "' must be in [1, " + max_text + "]"};
    }
    if (*sigma < 0 || *sigma > 4) {
      return unexpected{"sigma '" + std::string(parts[2]) + "' must be in [0, 4]"};
    }
    d = {length_dist::kind::lognormal, *median, *sigma};
    return d;
  }
  if (name == "zipf") {
    if (auto e = want_args(2, "zipf:S:MAX"); !e.empty()) return unexpected{e};
    auto s = number(parts[1], "exponent");
    if (!s) return unexpected{s.error()};
    auto max = number(parts[2], "largest length");
    if (!max) return unexpected{max.error()};
    if (*s <= 0 || *s > 100) {
      return unexpected{"exponent '" + std::string(parts[1]) + "' must be in (0, 100]"};
    }
    if (*max < 1 || *max > max_generated_tokens || *max != std::floor(*max)) {
      return unexpected{"largest length '" + std::string(parts[2]) +
                        "' must be a whole number in [1, " + max_text + "]"};
    }
    d = {length_dist::kind::zipf, *s, *max};
    return d;
  }
  return unexpected{"unknown distribution '" + std::string(name) + "' " + std::string(known)};
}

std::string to_string(const length_dist& d) {
  switch (d.shape) {
    case length_dist::kind::fixed: return "fixed:" + shortest(d.a);
    case length_dist::kind::uniform: return "uniform:" + shortest(d.a) + ":" + shortest(d.b);
    case length_dist::kind::lognormal: return "lognormal:" + shortest(d.a) + ":" + shortest(d.b);
    case length_dist::kind::zipf: return "zipf:" + shortest(d.a) + ":" + shortest(d.b);
  }
  return "?";
}

length_sampler::length_sampler(const length_dist& d)
    : d_(d),
      zipf_(d.shape == length_dist::kind::zipf ? static_cast<std::uint64_t>(d.b) : 1,
            d.shape == length_dist::kind::zipf ? d.a : 1.0) {
  if (d.shape == length_dist::kind::uniform) {
    const std::uint32_t lo = clamp_length(d.a * (1 - d.b));
    const std::uint32_t hi = std::max(lo, clamp_length(d.a * (1 + d.b)));
    lo_ = lo;
    span_ = std::uint64_t{hi} - lo + 1;
  }
}

std::uint32_t length_sampler::operator()(rng& g) const {
  switch (d_.shape) {
    case length_dist::kind::fixed: return clamp_length(d_.a);
    case length_dist::kind::uniform: return static_cast<std::uint32_t>(lo_ + g.below(span_));
    case length_dist::kind::lognormal: return clamp_length(d_.a * std::exp(d_.b * g.normal()));
    case length_dist::kind::zipf: return static_cast<std::uint32_t>(zipf_(g));
  }
  return 1;
}

}  // namespace kvscope
