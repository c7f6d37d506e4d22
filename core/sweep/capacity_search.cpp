#include "sweep/capacity_search.hpp"

namespace kvscope {

capacity_result search_capacity(const std::function<capacity_probe(double)>& probe,
                                const capacity_options& options) {
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
