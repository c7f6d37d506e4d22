#include "metric_history.hpp"

#include <algorithm>
#include <cassert>

namespace kvscope::ui {

MetricHistory::MetricHistory(std::size_t capacity, std::size_t recent, std::size_t max_transitions)
    : capacity_(capacity), recent_(recent), max_transitions_(max_transitions) {
  assert(recent_ + 2 <= capacity_);
  points_.reserve(capacity_);
}

void MetricHistory::clear() {
  points_.clear();
  transitions_.clear();
  seen_ = transitions_seen_ = 0;
  has_last_level_ = false;
}

bool MetricHistory::append(const step_metrics& m) {
  HistoryPoint p;
  p.t = m.sim_time_s;
  p.step = m.step;
  p.usage = m.kv_cache_usage_perc;
  p.ewma = m.pressure_ewma;
  p.level = m.level;
  for (std::size_t i = 0; i < 4; ++i) p.bytes[i] = static_cast<double>(m.bytes_per_level[i]);
  p.scales = static_cast<double>(m.scale_bytes);
  p.free = static_cast<double>(m.free_bytes);
  if (has_last_level_ && m.level != last_level_) {
    if (transitions_.size() == max_transitions_) transitions_.erase(transitions_.begin());
    transitions_.push_back({p.t, p.step, last_level_, m.level, p.ewma});
    ++transitions_seen_;
  }
  has_last_level_ = true;
  last_level_ = m.level;
  ++seen_;
  points_.push_back(p);
  if (points_.size() < capacity_) return false;
  thin();
  return true;
}

// Keeps every other point of the part older than the live window.
void MetricHistory::thin() {
  const std::size_t old_end = points_.size() - recent_;
  std::size_t out = 0;
  for (std::size_t i = 0; i < old_end; i += 2) points_[out++] = points_[i];
  std::move(points_.begin() + static_cast<std::ptrdiff_t>(old_end), points_.end(),
            points_.begin() + static_cast<std::ptrdiff_t>(out));
  points_.resize(out + recent_);
}

}  // namespace kvscope::ui
