#pragma once
// Nelder–Mead minimisation (standard coefficients: reflect 1, expand 2, contract 1/2, shrink 1/2)
// of a cost over an unbounded parameter space. Callers map bounded parameters onto it (logits of
// shares, logs of times) so every point the simplex visits is valid.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <vector>

namespace kvscope {

// The maps callers use: a share in (0, 1) to the whole line and back.
inline double logit(double p) { return std::log(p / (1 - p)); }
inline double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

struct nelder_mead_result {
  std::vector<double> best;  // the lowest-cost point visited
  double cost = 0;
  std::size_t evaluations = 0;
};

// Minimises `cost(x)` from `start`, the initial simplex stepping `steps[d]` along each axis d.
// Stops when every vertex is within `tolerance` of the best on every axis, the best cost is below
// 1e-14, or after `max_evaluations` calls of `cost`. A non-finite cost counts as very large.
template <class Cost>
nelder_mead_result nelder_mead(Cost&& cost, std::vector<double> start, const std::vector<double>& steps,
                               std::size_t max_evaluations, double tolerance = 1e-5) {
  const std::size_t dims = start.size();
  nelder_mead_result r;
  const auto f_of = [&](const std::vector<double>& x) {
    ++r.evaluations;
    const double v = cost(x);
    return std::isfinite(v) ? v : 1e30;
  };
  std::vector<std::vector<double>> simplex(dims + 1, start);
  for (std::size_t d = 0; d < dims; ++d) simplex[d + 1][d] += steps[d];
  std::vector<double> f(dims + 1);
  for (std::size_t i = 0; i <= dims; ++i) f[i] = f_of(simplex[i]);
  std::vector<std::size_t> order(dims + 1);
  while (r.evaluations < max_evaluations) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return f[a] < f[b]; });
    const std::size_t best = order[0], worst = order[dims], second = order[dims - 1];
    double spread = 0;
    for (std::size_t i = 1; i <= dims; ++i) {
      for (std::size_t d = 0; d < dims; ++d) {
        spread = std::max(spread, std::fabs(simplex[order[i]][d] - simplex[best][d]));
      }
    }
    if (spread < tolerance || f[best] < 1e-14) break;
    std::vector<double> centroid(dims, 0.0);
    for (std::size_t i = 0; i < dims; ++i) {
      for (std::size_t d = 0; d < dims; ++d) centroid[d] += simplex[order[i]][d] / static_cast<double>(dims);
    }
    const auto along = [&](double t) {
      std::vector<double> p(dims);
      for (std::size_t d = 0; d < dims; ++d) p[d] = centroid[d] + t * (simplex[worst][d] - centroid[d]);
      return p;
    };
    const auto reflected = along(-1);
    const double fr = f_of(reflected);
    if (fr < f[best]) {
      const auto expanded = along(-2);
      const double fe = f_of(expanded);
      if (fe < fr) {
        simplex[worst] = expanded, f[worst] = fe;
      } else {
        simplex[worst] = reflected, f[worst] = fr;
      }
    } else if (fr < f[second]) {
      simplex[worst] = reflected, f[worst] = fr;
    } else {
      const auto contracted = along(fr < f[worst] ? -0.5 : 0.5);
      const double fc = f_of(contracted);
      if (fc < std::min(fr, f[worst])) {
        simplex[worst] = contracted, f[worst] = fc;
      } else {
        for (std::size_t i = 1; i <= dims; ++i) {
          const std::size_t k = order[i];
          for (std::size_t d = 0; d < dims; ++d) {
            simplex[k][d] = simplex[best][d] + 0.5 * (simplex[k][d] - simplex[best][d]);
          }
          f[k] = f_of(simplex[k]);
        }
      }
    }
  }
  const auto best = static_cast<std::size_t>(std::min_element(f.begin(), f.end()) - f.begin());
  r.best = simplex[best];
  r.cost = f[best];
  return r;
}

}  // namespace kvscope
