#pragma once
// Per-step metrics kept in bounded memory however long a run lasts: the most recent steps in
// full, a decimated view of the whole run whose stride doubles whenever it fills up, and every
// level transition exactly. One history serves the metrics CSV export and the plots.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "engine/step_metrics.hpp"

namespace kvscope {

// The policy's level changed at this step (a marker on the plots).
struct level_transition {
  std::uint64_t step = 0;
  double sim_time_s = 0;
  precision from = precision::fp16, to = precision::fp16;
  double ewma = 0;  // the EWMA that crossed the threshold
};

class metrics_history {
 public:
  // Keeps the last `recent_capacity` steps, at most `overview_capacity` overview points and
  // the newest `transition_capacity` transitions. Precondition: each >= 2.
  explicit metrics_history(std::size_t recent_capacity = 8192, std::size_t overview_capacity = 4096,
                           std::size_t transition_capacity = 4096);

  void push(const step_metrics& m);
  void clear();

  // Steps pushed since construction or clear().
  std::uint64_t total() const noexcept { return total_; }
  bool empty() const noexcept { return total_ == 0; }
  // The last min(total, recent_capacity) steps, oldest first.
  std::vector<step_metrics> recent() const;
  // Every overview_stride()-th step of the whole run (steps 0, s, 2s, ...), oldest first.
  const std::vector<step_metrics>& overview() const noexcept { return overview_; }
  std::uint64_t overview_stride() const noexcept { return stride_; }
  // Level changes, oldest first (the newest transition_capacity of transitions_seen()).
  const std::deque<level_transition>& transitions() const noexcept { return transitions_; }
  std::uint64_t transitions_seen() const noexcept { return transitions_seen_; }

  // What a plot of the whole run draws, oldest first: the overview's points older than the
  // recent steps, then every recent step. `f(const step_metrics&)`.
  template <class F>
  void for_each_point(F&& f) const {
    const std::uint64_t first_recent = ring_.empty() ? 0 : ring_at(0).step;
    for (const step_metrics& m : overview_) {
      if (m.step >= first_recent) break;
      f(m);
    }
    for (std::size_t i = 0; i < ring_.size(); ++i) f(ring_at(i));
  }
  // How many points for_each_point visits.
  std::size_t point_count() const;
  // The oldest and newest steps for_each_point visits. Precondition: !empty().
  const step_metrics& first_point() const;
  const step_metrics& last_point() const { return ring_at(ring_.size() - 1); }

 private:
  const step_metrics& ring_at(std::size_t i) const {  // i-th oldest recent step
    return ring_[(ring_head_ + i) % ring_.size()];
  }

  std::vector<step_metrics> ring_;
  std::size_t ring_head_ = 0;  // next slot to write once the ring is full
  std::size_t recent_capacity_;
  std::vector<step_metrics> overview_;
  std::size_t overview_capacity_;
  std::uint64_t stride_ = 1;
  std::uint64_t total_ = 0;
  std::deque<level_transition> transitions_;
  std::size_t transition_capacity_;
  std::uint64_t transitions_seen_ = 0;
};

}  // namespace kvscope
