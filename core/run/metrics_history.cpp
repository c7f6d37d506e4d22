#include "run/metrics_history.hpp"

#include <cassert>

namespace kvscope {

metrics_history::metrics_history(std::size_t recent_capacity, std::size_t overview_capacity,
                                 std::size_t transition_capacity)
    : recent_capacity_(recent_capacity),
      overview_capacity_(overview_capacity),
      transition_capacity_(transition_capacity) {
  assert(recent_capacity >= 2 && overview_capacity >= 2 && transition_capacity >= 2);
  ring_.reserve(recent_capacity_);
  overview_.reserve(overview_capacity_);
}

void metrics_history::push(const step_metrics& m) {
  if (total_ > 0 && m.level != last_point().level) {
    if (transitions_.size() == transition_capacity_) transitions_.pop_front();
    transitions_.push_back({m.step, m.sim_time_s, last_point().level, m.level, m.pressure_ewma});
    ++transitions_seen_;
  }
  if (ring_.size() < recent_capacity_) {
    ring_.push_back(m);
  } else {
    ring_[ring_head_] = m;
    ring_head_ = (ring_head_ + 1) % recent_capacity_;
  }
  if (total_ % stride_ == 0) {
    if (overview_.size() == overview_capacity_) {
      // Keep points 0, 2, 4, …: they are exactly the multiples of the doubled stride.
      std::size_t kept = 0;
      for (std::size_t i = 0; i < overview_.size(); i += 2) overview_[kept++] = overview_[i];
      overview_.resize(kept);
      stride_ *= 2;
    }
    if (total_ % stride_ == 0) overview_.push_back(m);
  }
  ++total_;
}

void metrics_history::clear() {
  ring_.clear();
  ring_head_ = 0;
  overview_.clear();
  stride_ = 1;
  total_ = 0;
  transitions_.clear();
  transitions_seen_ = 0;
}

std::vector<step_metrics> metrics_history::recent() const {
  std::vector<step_metrics> out;
  out.reserve(ring_.size());
  for (std::size_t i = 0; i < ring_.size(); ++i) out.push_back(ring_at(i));
  return out;
}

std::size_t metrics_history::point_count() const {
  if (ring_.empty()) return 0;
  const std::uint64_t first_recent = ring_at(0).step;
  std::size_t older = 0;
  while (older < overview_.size() && overview_[older].step < first_recent) ++older;
  return older + ring_.size();
}

const step_metrics& metrics_history::first_point() const {
  assert(!empty());
  return !overview_.empty() && overview_.front().step < ring_at(0).step ? overview_.front() : ring_at(0);
}

}  // namespace kvscope
