#pragma once
// A bounded history of the per-step metrics the plots need. The newest `recent` points keep
// full resolution (the live window); when the history is full, the older part is thinned by
// half, so zooming out over a long run stays cheap. Level transitions are kept exactly.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/step_metrics.hpp"

namespace kvscope::ui {

struct HistoryPoint {
  double t = 0;  // simulated seconds
  std::uint64_t step = 0;
  double usage = 0, ewma = 0;
  precision level = precision::fp16;
  std::array<double, 4> bytes{};  // payload per level
  double scales = 0, free = 0;
};

struct LevelTransition {
  double t = 0;
  std::uint64_t step = 0;
  precision from = precision::fp16, to = precision::fp16;
  double ewma = 0;  // where the marker sits on the EWMA line
};

class MetricHistory {
 public:
  explicit MetricHistory(std::size_t capacity = 20000, std::size_t recent = 6000,
                         std::size_t max_transitions = 4096);

  // Appends one step. Returns true when older points were thinned (consumers that mirror the
  // points must reload them all).
  bool append(const step_metrics& m);
  void clear();

  const std::vector<HistoryPoint>& points() const { return points_; }
  const std::vector<LevelTransition>& transitions() const { return transitions_; }
  // Steps seen in total (points_ holds fewer once thinned).
  std::uint64_t stepsSeen() const { return seen_; }
  // Transitions seen in total (transitions() keeps the newest max_transitions).
  std::uint64_t transitionsSeen() const { return transitions_seen_; }
  bool empty() const { return points_.empty(); }

 private:
  void thin();

  std::size_t capacity_, recent_, max_transitions_;
  std::vector<HistoryPoint> points_;
  std::vector<LevelTransition> transitions_;
  std::uint64_t seen_ = 0, transitions_seen_ = 0;
  bool has_last_level_ = false;
  precision last_level_ = precision::fp16;
};

}  // namespace kvscope::ui
