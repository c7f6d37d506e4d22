#pragma once
// Pareto fronts: the points no other point dominates. a dominates b when a is at least as good
// in every objective and better in one. Exact (no epsilon): equal points do not dominate each
// other, so duplicates on the front are all kept.
#include <cstddef>
#include <vector>

#include "sweep/objective.hpp"

namespace kvscope {

// True when `a` dominates `b` (values in the objectives' order).
bool dominates(const std::vector<objective>& objectives, const std::vector<double>& a,
               const std::vector<double>& b);

// The indices of the non-dominated points, ascending. Points with NaN in any objective are
// left out (they cannot be compared). O(n log n + n·front): sorted best-first on the first
// objective, a point can only be dominated by one before it, and if by any then by a front one.
std::vector<std::size_t> pareto_front(const std::vector<objective>& objectives,
                                      const std::vector<std::vector<double>>& points);

}  // namespace kvscope
