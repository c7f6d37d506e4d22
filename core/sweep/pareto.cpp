#include "sweep/pareto.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kvscope {
namespace {

// The value as "higher is better".
double oriented(const objective& o, double v) { return o.dir == direction::maximize ? v : -v; }

}  // namespace

bool dominates(const std::vector<objective>& objectives, const std::vector<double>& a,
               const std::vector<double>& b) {
  bool strictly = false;
  for (std::size_t k = 0; k < objectives.size(); ++k) {
    const double x = oriented(objectives[k], a[k]), y = oriented(objectives[k], b[k]);
    if (x < y) return false;
    strictly = strictly || x > y;
  }
  return strictly;
}

std::vector<std::size_t> pareto_front(const std::vector<objective>& objectives,
                                      const std::vector<std::vector<double>>& points) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (std::none_of(points[i].begin(), points[i].end(), [](double v) { return std::isnan(v); })) {
      order.push_back(i);
    }
  }
  // Best first, lexicographically over all objectives: whatever dominates a point sorts before it.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    for (std::size_t k = 0; k < objectives.size(); ++k) {
      const double x = oriented(objectives[k], points[a][k]), y = oriented(objectives[k], points[b][k]);
      if (x != y) return x > y;
    }
    return false;
  });
  std::vector<std::size_t> front;
  for (std::size_t i : order) {
    const bool dominated = std::any_of(front.begin(), front.end(), [&](std::size_t f) {
      return dominates(objectives, points[f], points[i]);
    });
    if (!dominated) front.push_back(i);
  }
  std::sort(front.begin(), front.end());
  return front;
}

}  // namespace kvscope
