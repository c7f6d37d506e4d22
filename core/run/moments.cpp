#include "run/moments.hpp"

#include <algorithm>
#include <cmath>

namespace kvscope {

moment_finder::moment_finder(double window_s, std::size_t max_kept)
    : window_s_(window_s), max_kept_(max_kept) {}

void moment_finder::observe(const step_metrics& m) {
  if (!seen_) {
    // The level the run starts at is not a change; the first step's is where it starts.
    level_ = m.level;
    first_start_s_ = m.sim_time_s - m.step_seconds;
  }
  ++found_.steps;
  found_.sim_time_s = m.sim_time_s;
  if (!found_.peak_pressure || m.kv_cache_usage_perc > found_.peak_pressure->value) {
    found_.peak_pressure = moment{moment_kind::peak_pressure, m.step, m.sim_time_s, m.kv_cache_usage_perc};
  }
  if (seen_ && m.level != level_) {
    ++found_.level_changes_total;
    moment change{moment_kind::level_change, m.step, m.sim_time_s};
    change.level = m.level;
    if (found_.level_changes.size() < max_kept_) found_.level_changes.push_back(change);
    std::optional<moment>& first = found_.first_at_level[static_cast<std::size_t>(ordinal(m.level))];
    if (!first) first = change;
  }
  level_ = m.level;
  if (m.num_preemptions_total > preemptions_) {
    ++found_.preemption_steps_total;
    if (found_.preemptions.size() < max_kept_) {
      found_.preemptions.push_back(moment{moment_kind::preemption, m.step, m.sim_time_s,
                                          static_cast<double>(m.num_preemptions_total - preemptions_)});
    }
  }
  preemptions_ = std::max(preemptions_, m.num_preemptions_total);
  seen_ = true;
  observe_busiest(m);
}

// The busiest minute is the window of window_s simulated seconds over which the most sequences
// ran, counted as sequence-seconds (each step's running count times its simulated length): the
// time the batch was full, whatever the step lengths. Every window ending at a step's end is a
// candidate; the steps it overlaps are kept in window_, the first one possibly in part. A jump
// lands on that first step, so the minute plays from its start.
void moment_finder::observe_busiest(const step_metrics& m) {
  const double running = static_cast<double>(m.num_requests_running);
  window_.push_back({m.step, m.sim_time_s - m.step_seconds, m.sim_time_s, running});
  window_sum_ += running * m.step_seconds;
  const double start = m.sim_time_s - window_s_;
  while (window_.size() > 1 && window_.front().end_s <= start) {
    const span_part& gone = window_.front();
    window_sum_ -= gone.running * (gone.end_s - gone.start_s);
    window_.pop_front();
  }
  const span_part& first = window_.front();
  const double cut = first.start_s < start ? first.running * (start - first.start_s) : 0;
  const double sum = window_sum_ - cut;
  if (sum <= best_sum_) return;
  best_sum_ = sum;
  const double from = std::max(start, first_start_s_);
  const double length = m.sim_time_s - from;
  moment busiest{moment_kind::busiest_minute, first.step, from, length > 0 ? sum / length : running};
  busiest.until_s = m.sim_time_s;
  found_.busiest_minute = busiest;
}

run_moments find_moments(std::span<const step_metrics> steps, double window_s) {
  moment_finder finder(window_s);
  for (const step_metrics& m : steps) finder.observe(m);
  return finder.moments();
}

double default_steps_per_second(std::uint64_t steps, double target_s, double slowest, double fastest) {
  const double wanted = static_cast<double>(steps) / std::max(target_s, 1.0);
  if (!(wanted > slowest)) return slowest;
  // The nearest 1-2-5 number (by ratio), so the speed box reads "500 steps/s", not "517".
  const double decade = std::pow(10.0, std::floor(std::log10(wanted)));
  double best = decade;
  for (double f : {1.0, 2.0, 5.0, 10.0}) {
    if (std::abs(std::log(f * decade / wanted)) < std::abs(std::log(best / wanted))) best = f * decade;
  }
  return std::clamp(best, slowest, fastest);
}

}  // namespace kvscope
