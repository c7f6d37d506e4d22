#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sweep/tune_search.hpp"

namespace kvscope {
namespace {

tune_score score(double objective, std::vector<double> constraint_values = {}) {
  tune_score s;
  s.objective = objective;
  s.constraint_values = std::move(constraint_values);
  return s;
}

tune_problem problem_of(std::vector<std::size_t> sizes, objective goal, std::vector<constraint> constraints = {}) {
  tune_problem p;
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    sweep_axis axis{"x" + std::to_string(a), {}};
    for (std::size_t v = 0; v < sizes[a]; ++v) axis.values.push_back(std::to_string(v));
    p.axes.push_back(std::move(axis));
  }
  p.goal = std::move(goal);
  p.constraints = std::move(constraints);
  return p;
}

// An evaluator from a formula over the point, counting what it is asked.
struct formula {
  std::function<tune_score(const grid_point&)> f;
  std::size_t calls = 0;
  tune_evaluator evaluator() {
    return [this](const std::vector<grid_point>& points) {
      std::vector<tune_score> scores;
      for (const auto& p : points) {
        ++calls;
        scores.push_back(f(p));
      }
      return scores;
    };
  }
};

// A unimodal separable objective: descent finds the grid's best point with far fewer runs.
TEST(TuneSearch, DescentFindsTheGridsBestOnAUnimodalSpace) {
  const auto p = problem_of({11, 9, 5}, {"score", direction::maximize});
  formula f{[](const grid_point& x) {
    return score(-std::pow(double(x[0]) - 7, 2) - 2 * std::pow(double(x[1]) - 2, 2) - std::fabs(double(x[2]) - 4));
  }};
  const auto grid = tune_search(p, tune_method::grid, f.evaluator());
  EXPECT_EQ(f.calls, 11u * 9 * 5);
  EXPECT_EQ(grid.trials.size(), 495u);
  f.calls = 0;
  const auto descent = tune_search(p, tune_method::descent, f.evaluator());
  EXPECT_EQ(descent.best, (grid_point{7, 2, 4}));
  EXPECT_EQ(descent.best, grid.best);
  EXPECT_EQ(f.calls, descent.trials.size());  // each config once
  EXPECT_LT(descent.trials.size(), 60u);
}

// The shape of KV tuning: the objective rises with compression on every axis, the error
// constraint depends on one (q4_threshold-like) axis. Random instances; descent's objective is
// the grid's and its point meets the constraint.
TEST(TuneSearch, DescentMatchesTheGridUnderAConstraintOnRandomMonotoneSpaces) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<std::size_t> sizes{2 + rng() % 8, 2 + rng() % 8, 2 + rng() % 4};
    const double bound = 0.1 + 0.8 * double(rng() % 1000) / 1000;
    std::vector<double> w{1 + double(rng() % 5), 1 + double(rng() % 5), double(rng() % 3)};
    const auto p = problem_of(sizes, {"goodput", direction::maximize}, {{"error", comparison::at_most, bound}});
    formula f{[&](const grid_point& x) {
      double objective = 0;
      for (std::size_t a = 0; a < 3; ++a) objective += w[a] * std::sqrt(double(x[a]));
      const double error = double(x[0]) / double(sizes[0] - 1);
      return score(objective, {error});
    }};
    const auto grid = tune_search(p, tune_method::grid, f.evaluator());
    const auto descent = tune_search(p, tune_method::descent, f.evaluator());
    ASSERT_EQ(descent.feasible, grid.feasible) << trial;
    if (!grid.feasible) continue;
    EXPECT_EQ(descent.score.objective, grid.score.objective) << "trial " << trial;
    EXPECT_LE(descent.trials.size(), grid.trials.size());
  }
}

TEST(TuneSearch, RankingPutsFeasibleFirstThenObjectiveThenViolation) {
  const auto p = problem_of({2}, {"goodput", direction::maximize}, {{"error", comparison::at_most, 0.05}});
  const tune_score good = score(1.0, {0.01}), better_but_over = score(9.0, {0.06}), far_over = score(9.0, {0.5});
  EXPECT_TRUE(ranks_before(p, good, 5, better_but_over, 0));
  EXPECT_TRUE(ranks_before(p, better_but_over, 5, far_over, 0));
  EXPECT_TRUE(ranks_before(p, good, 0, good, 1));  // ties: the lower index
  tune_score cannot_run = score(NAN, {NAN});
  cannot_run.invalid = "q4_threshold must be >= q8_threshold";
  EXPECT_FALSE(feasible(p, cannot_run));
  EXPECT_TRUE(ranks_before(p, far_over, 1, cannot_run, 0));
  // Without constraints an invalid config is still never feasible.
  EXPECT_FALSE(feasible(problem_of({1}, {"g", direction::maximize}), cannot_run));
}

TEST(TuneSearch, GridIndexIsTheSweepsConfigIndex) {
  const auto p = problem_of({2, 3, 4}, {"g", direction::maximize});
  EXPECT_EQ(grid_size(p), 24u);
  for (std::size_t i = 0; i < 24; ++i) EXPECT_EQ(grid_index(p, grid_point_at(p, i)), i);
  EXPECT_EQ(grid_index(p, {0, 0, 1}), 1u);  // the last axis fastest
  EXPECT_EQ(grid_index(p, {1, 0, 0}), 12u);
  EXPECT_EQ(describe(config_at(p, {1, 2, 3})), "x0=1 x1=2 x2=3");
}

TEST(TuneSearch, NoAxesIsOneConfig) {
  const auto p = problem_of({}, {"g", direction::maximize});
  formula f{[](const grid_point&) { return score(3); }};
  const auto r = tune_search(p, tune_method::descent, f.evaluator());
  EXPECT_EQ(r.trials.size(), 1u);
  EXPECT_EQ(r.best_index, 0u);
  EXPECT_TRUE(r.feasible);
}

}  // namespace
}  // namespace kvscope

namespace kvscope {
namespace {

tune_score bracketed(double low, double high, double error, double transitions) {
  tune_score s;
  s.objective = low;
  s.objective_high = high;
  s.figures = {{"attention_error_exposure", error}, {"transitions_per_hour", transitions}};
  return s;
}

// Capacities whose brackets overlap cannot be told apart: less attention error wins, then fewer
// transitions; a clearly higher capacity still wins whatever its error.
TEST(TuneSearch, BracketTiesGoToLessErrorThenFewerTransitions) {
  const auto p = problem_of({3}, {"capacity_rps", direction::maximize});
  const tune_score high_error = bracketed(5.0, 5.05, 0.04, 10);
  const tune_score low_error = bracketed(4.98, 5.03, 0.01, 50);
  EXPECT_TRUE(ranks_before(p, low_error, 1, high_error, 0));
  EXPECT_FALSE(ranks_before(p, high_error, 0, low_error, 1));
  const tune_score same_error_fewer = bracketed(4.99, 5.04, 0.01, 5);
  EXPECT_TRUE(ranks_before(p, same_error_fewer, 2, low_error, 1));
  const tune_score clearly_higher = bracketed(5.2, 5.25, 0.09, 100);
  EXPECT_TRUE(ranks_before(p, clearly_higher, 2, low_error, 1));
  // Brackets that only share an end: at that rate the higher one passed and the lower failed.
  const tune_score just_above = bracketed(5.05, 5.1, 0.09, 100);
  EXPECT_TRUE(ranks_before(p, just_above, 3, high_error, 0));
  EXPECT_FALSE(ranks_before(p, high_error, 0, just_above, 3));
  // Exact objectives tie only when equal.
  tune_score a = score(5.0), b = score(5.0);
  a.figures = {{"attention_error_exposure", 0.05}};
  b.figures = {{"attention_error_exposure", 0.02}};
  EXPECT_TRUE(ranks_before(p, b, 1, a, 0));
  b.objective = 4.999;
  EXPECT_FALSE(ranks_before(p, b, 1, a, 0));
}

// A chain of overlapping brackets whose errors rise with the capacity is not a strict order
// (each point ties its neighbours and wins on error, yet loses to points two steps up): descent
// must still stop, each config run once, near the top.
TEST(TuneSearch, DescentStopsOnAChainOfBracketTies) {
  const auto p = problem_of({9}, {"capacity_rps", direction::maximize});
  formula f{[](const grid_point& x) {
    const double low = 5 + 0.03 * double(x[0]);
    return bracketed(low, low + 0.05, 0.01 * double(x[0]), 0);
  }};
  const auto descent = tune_search(p, tune_method::descent, f.evaluator());
  EXPECT_EQ(f.calls, 9u);
  EXPECT_GE(descent.score.objective, 5 + 0.03 * 8 - 0.05 - 1e-12);  // ties the best's bracket
}

}  // namespace
}  // namespace kvscope
