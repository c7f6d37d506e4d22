#include "sweep/tune_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>

namespace kvscope {
namespace {

double total_violation(const tune_problem& p, const tune_score& s) {
  if (!s.invalid.empty()) return std::numeric_limits<double>::infinity();
  double v = 0;
  for (std::size_t i = 0; i < p.constraints.size(); ++i) v += violation(p.constraints[i], s.constraint_values[i]);
  return v;
}

// Runs what is not cached yet of `points`, keeping the evaluation order in `trials`.
class search_state {
 public:
  search_state(const tune_problem& p, const tune_evaluator& e) : problem_(p), evaluate_(e) {}

  void evaluate(const std::vector<grid_point>& points) {
    std::vector<grid_point> fresh;
    std::vector<std::size_t> indices;
    for (const auto& point : points) {
      const std::size_t index = grid_index(problem_, point);
      if (scores_.count(index) || std::find(indices.begin(), indices.end(), index) != indices.end()) continue;
      fresh.push_back(point);
      indices.push_back(index);
    }
    if (fresh.empty()) return;
    auto scores = evaluate_(fresh);
    for (std::size_t i = 0; i < fresh.size(); ++i) {
      trials_.push_back({indices[i], scores[i], feasible(problem_, scores[i])});
      scores_.emplace(indices[i], std::move(scores[i]));
    }
  }

  // The best of `candidates` and `current` (all evaluated).
  grid_point best_of(const grid_point& current, const std::vector<grid_point>& candidates) const {
    grid_point best = current;
    std::size_t best_index = grid_index(problem_, current);
    for (const auto& c : candidates) {
      const std::size_t index = grid_index(problem_, c);
      if (ranks_before(problem_, scores_.at(index), index, scores_.at(best_index), best_index)) {
        best = c;
        best_index = index;
      }
    }
    return best;
  }

  tune_result result(const grid_point& best) && {
    tune_result r;
    r.best = best;
    r.best_index = grid_index(problem_, best);
    r.score = scores_.at(r.best_index);
    r.feasible = feasible(problem_, r.score);
    r.grid_size = grid_size(problem_);
    r.trials = std::move(trials_);
    return r;
  }

 private:
  const tune_problem& problem_;
  const tune_evaluator& evaluate_;
  std::map<std::size_t, tune_score> scores_;
  std::vector<tune_trial> trials_;
};

// Every point of the grid along axis `a` through `at`.
std::vector<grid_point> line(const tune_problem& p, const grid_point& at, std::size_t a) {
  std::vector<grid_point> points;
  for (std::size_t v = 0; v < p.axes[a].values.size(); ++v) {
    auto q = at;
    q[a] = v;
    points.push_back(std::move(q));
  }
  return points;
}

// The points one step from `at` along one axis or along two at once.
std::vector<grid_point> neighbours(const tune_problem& p, const grid_point& at) {
  std::vector<grid_point> points;
  const auto step = [&](grid_point q, std::size_t a, int d) -> std::optional<grid_point> {
    if ((d < 0 && q[a] == 0) || (d > 0 && q[a] + 1 >= p.axes[a].values.size())) return std::nullopt;
    q[a] = d < 0 ? q[a] - 1 : q[a] + 1;
    return q;
  };
  for (std::size_t a = 0; a < at.size(); ++a) {
    for (int da : {-1, 1}) {
      const auto qa = step(at, a, da);
      if (!qa) continue;
      points.push_back(*qa);
      for (std::size_t b = a + 1; b < at.size(); ++b) {
        for (int db : {-1, 1}) {
          if (auto qb = step(*qa, b, db)) points.push_back(std::move(*qb));
        }
      }
    }
  }
  return points;
}

// The bracket's upper end, or the objective itself when it is exact.
double upper(const tune_score& s) noexcept { return std::isnan(s.objective_high) ? s.objective : s.objective_high; }

// Equal objectives, or capacity brackets that overlap. A bracket is [rate that passed, rate that
// failed): two that only share an end do not overlap, since at that rate one config passed and
// the other failed. Brackets on the search's lattice (sweep/capacity_search.hpp) are then equal or
// apart, and ties are an equivalence, not a chain.
bool ties(const tune_score& a, const tune_score& b) noexcept {
  if (a.objective == b.objective) return true;
  return a.objective < upper(b) && b.objective < upper(a);
}

// -1 when a's figure is smaller (NaN counts as the largest), 1 when larger, 0 when equal.
int compare_lower(double a, double b) noexcept {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) == std::isnan(b) ? 0 : (std::isnan(a) ? 1 : -1);
  return a < b ? -1 : (a > b ? 1 : 0);
}

}  // namespace

std::size_t grid_size(const tune_problem& problem) {
  std::size_t n = 1;
  for (const auto& a : problem.axes) n *= a.values.size();
  return n;
}

std::size_t grid_index(const tune_problem& problem, const grid_point& point) {
  std::size_t index = 0;
  for (std::size_t a = 0; a < problem.axes.size(); ++a) index = index * problem.axes[a].values.size() + point[a];
  return index;
}

grid_point grid_point_at(const tune_problem& problem, std::size_t index) {
  grid_point point(problem.axes.size());
  for (std::size_t a = problem.axes.size(); a-- > 0;) {
    point[a] = index % problem.axes[a].values.size();
    index /= problem.axes[a].values.size();
  }
  return point;
}

sweep_config config_at(const tune_problem& problem, const grid_point& point) {
  sweep_config config;
  for (std::size_t a = 0; a < problem.axes.size(); ++a) {
    config.push_back({problem.axes[a].name, problem.axes[a].values[point[a]]});
  }
  return config;
}

double figure(const tune_score& s, std::string_view key) noexcept {
  for (const auto& [k, v] : s.figures) {
    if (k == key) return v;
  }
  return NAN;
}

bool feasible(const tune_problem& problem, const tune_score& score) {
  if (!score.invalid.empty()) return false;
  for (std::size_t i = 0; i < problem.constraints.size(); ++i) {
    if (!satisfied(problem.constraints[i], score.constraint_values[i])) return false;
  }
  return true;
}

bool ranks_before(const tune_problem& problem, const tune_score& a, std::size_t ia, const tune_score& b,
                  std::size_t ib) {
  const bool fa = feasible(problem, a), fb = feasible(problem, b);
  if (fa != fb) return fa;
  if (fa) {
    if (ties(a, b)) {
      for (const std::string_view key : {"attention_error_exposure", "transitions_per_hour"}) {
        if (const int c = compare_lower(figure(a, key), figure(b, key)); c != 0) return c < 0;
      }
    }
    if (better(problem.goal, a.objective, b.objective)) return true;
    if (better(problem.goal, b.objective, a.objective)) return false;
  } else {
    const double va = total_violation(problem, a), vb = total_violation(problem, b);
    if (va != vb) return va < vb;
    if (better(problem.goal, a.objective, b.objective)) return true;
    if (better(problem.goal, b.objective, a.objective)) return false;
  }
  return ia < ib;
}

tune_result tune_search(const tune_problem& problem, tune_method method, const tune_evaluator& evaluate) {
  search_state state(problem, evaluate);
  if (method == tune_method::grid) {
    std::vector<grid_point> all;
    for (std::size_t i = 0; i < grid_size(problem); ++i) all.push_back(grid_point_at(problem, i));
    state.evaluate(all);
    return std::move(state).result(state.best_of(all.front(), all));
  }
  grid_point current(problem.axes.size());
  for (std::size_t a = 0; a < problem.axes.size(); ++a) current[a] = (problem.axes[a].values.size() - 1) / 2;
  state.evaluate({current});
  // Points left behind: a move back to one would be a cycle of bracket ties.
  std::set<std::size_t> left{};
  const auto move_to = [&](const grid_point& best) {
    if (best == current || left.count(grid_index(problem, best))) return false;
    left.insert(grid_index(problem, current));
    current = best;
    return true;
  };
  for (;;) {
    bool moved = false;
    for (std::size_t a = 0; a < problem.axes.size(); ++a) {
      const auto points = line(problem, current, a);
      state.evaluate(points);
      moved = move_to(state.best_of(current, points)) || moved;
    }
    if (moved) continue;
    const auto around = neighbours(problem, current);
    state.evaluate(around);
    if (!move_to(state.best_of(current, around))) break;
  }
  return std::move(state).result(current);
}

}  // namespace kvscope
