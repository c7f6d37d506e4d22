#include "sweep/capacity_search.hpp"

#include <algorithm>
#include <cstdint>

namespace kvscope {
namespace {

// The bisections the search from 1 makes of a power-of-two bracket before it is within the
// tolerance: the depth of the lattice.
int lattice_depth(const capacity_options& options) {
  double low = 1, high = 2;
  int depth = 0;
  while (high / low - 1 > options.tolerance && depth < 40) {
    high = std::sqrt(low * high);
    ++depth;
  }
  return depth;
}

// Lattice point m (2^(m / 2^depth) in exact arithmetic), computed as the search from 1 computes
// it: bisecting its power-of-two bracket, so that both searches try the very same doubles.
double lattice_point(std::int64_t m, int depth) {
  const std::int64_t per = std::int64_t{1} << depth;
  const std::int64_t k = m >= 0 ? m / per : -((-m + per - 1) / per);  // floor(m / per)
  const std::int64_t r = m - k * per;
  double low = std::ldexp(1.0, static_cast<int>(k)), high = std::ldexp(1.0, static_cast<int>(k + 1));
  std::int64_t lo = 0, hi = per;
  while (r != lo) {
    const std::int64_t mid_index = (lo + hi) / 2;
    const double mid = std::sqrt(low * high);
    if (r < mid_index) {
      hi = mid_index;
      high = mid;
    } else {
      lo = mid_index;
      low = mid;
    }
  }
  return low;
}

// The search from a hint: gallop from the lattice interval holding it until a pass and a fail
// bracket the answer, then bisect the lattice between them.
capacity_result search_from_hint(const std::function<capacity_probe(double)>& probe,
                                 const capacity_options& options) {
  capacity_result r;
  const int depth = lattice_depth(options);
  const std::int64_t per = std::int64_t{1} << depth;
  const auto powers = static_cast<std::int64_t>(std::floor(std::log2(options.max_factor)));
  const std::int64_t top = powers * per, bottom = -powers * per;
  const auto run = [&](std::int64_t m) {
    const double f = lattice_point(m, depth);
    r.probes.push_back(probe(f));
    r.probes.back().rate_factor = f;
    return r.probes.back().pass;
  };
  // The lattice point at or just below the hint, by the lattice's own doubles.
  auto start = static_cast<std::int64_t>(std::llround(std::log2(options.hint) * static_cast<double>(per)));
  start = std::clamp(start, bottom, top);
  while (start > bottom && lattice_point(start, depth) > options.hint) --start;
  while (start < top && lattice_point(start + 1, depth) <= options.hint) ++start;

  std::int64_t passed = 0, failed = 0;  // lattice indices, valid once found
  if (run(start)) {
    passed = start;
    for (std::int64_t step = 1;; step *= 2) {
      if (passed == top) {
        r.low = lattice_point(top, depth);  // high stays infinite: every rate tried passed
        return r;
      }
      const std::int64_t m = std::min(passed + step, top);
      if (!run(m)) {
        failed = m;
        break;
      }
      passed = m;
    }
  } else {
    failed = start;
    for (std::int64_t step = 1;; step *= 2) {
      if (failed == bottom) {
        r.high = lattice_point(bottom, depth);  // low stays 0: every rate tried failed
        return r;
      }
      const std::int64_t m = std::max(failed - step, bottom);
      if (run(m)) {
        passed = m;
        break;
      }
      failed = m;
    }
  }
  while (failed - passed > 1) {
    const std::int64_t mid = passed + (failed - passed) / 2;
    if (run(mid)) {
      passed = mid;
    } else {
      failed = mid;
    }
  }
  r.low = lattice_point(passed, depth);
  r.high = lattice_point(failed, depth);
  return r;
}

}  // namespace

capacity_result search_capacity(const std::function<capacity_probe(double)>& probe,
                                const capacity_options& options) {
  if (options.hint > 0 && std::isfinite(options.hint) && options.max_factor >= 1) {
    return search_from_hint(probe, options);
  }
  capacity_result r;
  const auto run = [&](double f) {
    r.probes.push_back(probe(f));
    r.probes.back().rate_factor = f;
    return r.probes.back().pass;
  };
  // Bracket: double while passing, halve while failing.
  if (run(1.0)) {
    r.low = 1.0;
    for (double f = 2.0; f <= options.max_factor; f *= 2) {
      if (!run(f)) {
        r.high = f;
        break;
      }
      r.low = f;
    }
  } else {
    r.high = 1.0;
    for (double f = 0.5; f >= 1 / options.max_factor; f /= 2) {
      if (run(f)) {
        r.low = f;
        break;
      }
      r.high = f;
    }
  }
  if (r.low == 0 || std::isinf(r.high)) return r;
  while (r.high / r.low - 1 > options.tolerance) {
    const double mid = std::sqrt(r.low * r.high);
    if (run(mid)) {
      r.low = mid;
    } else {
      r.high = mid;
    }
  }
  return r;
}

}  // namespace kvscope
