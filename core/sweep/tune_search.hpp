#pragma once
// Searching a grid of configs for the best one under constraints, with an evaluator that runs
// them (sweep/tune_run.hpp) or, in tests, a formula.
//
// Ranking: a config meeting every constraint beats one that does not; among those that do, the
// better objective wins unless the two tie (equal, or a capacity search's brackets [passed,
// failed) overlap: the search cannot tell them apart; brackets that only share an end do not), when less attention error wins, then fewer level transitions;
// among those that do not, the smaller total violation (a config that cannot run is the worst);
// last, the lower grid index. Bracket ties are not transitive, so descent never returns to a
// point it has left. `grid` evaluates every config. `descent` does coordinate descent over the
// grid, starting at its centre: it evaluates the whole line of each axis through the current
// best and moves to the best on it, axis after axis, until a round moves nowhere; then it tries
// the neighbours one step away along one or two axes, and starts again from any better one.
// Every config is run once at most (results are cached), so it never costs more than the grid;
// on monotone-ish spaces it finds the grid's answer in about the sum of the axis lengths times
// a few rounds instead of their product.
#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sweep/objective.hpp"
#include "sweep/run_reuse.hpp"
#include "sweep/sweep_space.hpp"

namespace kvscope {

struct tune_problem {
  std::vector<sweep_axis> axes;
  objective goal;
  std::vector<constraint> constraints;
};

struct tune_score {
  double objective = 0;
  // A capacity search's bracket above `objective`: the lowest rate that failed (infinity when
  // none did). NaN when the objective is exact.
  double objective_high = NAN;
  std::vector<double> constraint_values;  // in the problem's constraint order
  std::string detail;  // how the objective was found, for people (a capacity search's bracket)
  std::string invalid;  // why the config cannot run (then it was not run and is never feasible)
  // Service figures of the run scored (at capacity, for a capacity search), for people.
  std::vector<std::pair<std::string, double>> figures;
  // Capacity search: the share of the load's requests that miss their SLOs even alone on an idle
  // server. Over 1 - target, no rate reaches the target and none was searched (objective 0).
  double infeasible_share = 0;
  // Capacity search: the rate factor of the bracket's low end, exactly (objective is it times the
  // load's rate); 0 when no rate passed or the objective is not a capacity.
  double capacity_factor = 0;
  // The engine runs behind the score, in order, reused or not: what tells which repeated an
  // earlier one (count_tune_repeats, sweep/tune_run.hpp).
  std::vector<recorded_run> runs;
};

// A point of the grid: one value index per axis.
using grid_point = std::vector<std::size_t>;

// Scores a batch of points (the caller may run them in parallel), one score each, in order.
using tune_evaluator = std::function<std::vector<tune_score>(const std::vector<grid_point>&)>;

enum class tune_method { grid, descent };

struct tune_trial {
  std::size_t index = 0;  // the point's grid index (the sweep's config index)
  tune_score score;
  bool feasible = false;
};

struct tune_result {
  grid_point best;
  std::size_t best_index = 0;
  tune_score score;
  bool feasible = false;
  std::size_t grid_size = 0;
  std::vector<tune_trial> trials;  // every config evaluated, in evaluation order
};

// The number of configs in the grid, and a point's index in it (the last axis fastest, as a
// sweep orders them).
std::size_t grid_size(const tune_problem& problem);
std::size_t grid_index(const tune_problem& problem, const grid_point& point);
grid_point grid_point_at(const tune_problem& problem, std::size_t index);
// The config of a point: (axis name, value) pairs.
sweep_config config_at(const tune_problem& problem, const grid_point& point);

bool feasible(const tune_problem& problem, const tune_score& score);
// A figure of the run scored (tune_score::figures) by key; NaN when it was not measured.
double figure(const tune_score& score, std::string_view key) noexcept;
// True when (a at index ia) ranks before (b at index ib).
bool ranks_before(const tune_problem& problem, const tune_score& a, std::size_t ia, const tune_score& b,
                  std::size_t ib);

// Precondition: every axis has at least one value.
tune_result tune_search(const tune_problem& problem, tune_method method, const tune_evaluator& evaluate);

}  // namespace kvscope
