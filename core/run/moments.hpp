#pragma once
// The moments of a run worth jumping to, found from its per-step metrics as it runs: the peak of
// the pressure, the busiest minute, each change of level and each preemption. A recorded trace
// spends most of its length quiet (the Azure conversation hour stays under 0.15 pressure for its
// first minutes), so a viewer wants to go straight to these; the GUI finds them on a background
// run of the same config and load and runs the live engine forward to one.
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "engine/step_metrics.hpp"

namespace kvscope {

enum class moment_kind { peak_pressure, busiest_minute, level_change, preemption };

struct moment {
  moment_kind kind = moment_kind::peak_pressure;
  // The step_metrics::step it happened at: the live view shows it once the engine has done
  // step + 1 steps (its snapshot's `latest` is that step).
  std::uint64_t step = 0;
  double sim_time_s = 0;  // that step's simulated time; busiest minute: the minute's start
  // peak_pressure: the raw pressure (kv_cache_usage_perc); busiest_minute: the mean number of
  // sequences running over the minute; preemption: how many that step preempted.
  double value = 0;
  double until_s = 0;                  // busiest_minute: the minute's end
  precision level = precision::fp16;  // level_change: the level from this step on
};

struct run_moments {
  std::optional<moment> peak_pressure;   // none for a run without steps
  std::optional<moment> busiest_minute;  // none for a run without steps
  std::vector<moment> level_changes;     // in step order, at most max_kept of them
  // The first change to each level, by ordinal(precision) (a flapping policy makes its first
  // few changes all between fp16 and q8: the first q4 is the one to look for).
  std::array<std::optional<moment>, kv_level_count> first_at_level{};
  std::vector<moment> preemptions;       // steps that preempted, in order, at most max_kept
  std::uint64_t level_changes_total = 0;
  std::uint64_t preemption_steps_total = 0;
  std::uint64_t steps = 0;   // steps the run took
  double sim_time_s = 0;     // its simulated length
};

// Fed every step of a run in order (a reset is a new run: a new finder).
class moment_finder {
 public:
  // `window_s`: the length of the "busiest minute"; `max_kept`: how many level changes and
  // preemptions are kept (a thrashing run can have millions; the totals still count them all).
  explicit moment_finder(double window_s = 60, std::size_t max_kept = 10000);
  void observe(const step_metrics& m);
  const run_moments& moments() const noexcept { return found_; }

 private:
  void observe_busiest(const step_metrics& m);

  struct span_part {  // one step's share of the busy window
    std::uint64_t step = 0;
    double start_s = 0, end_s = 0;
    double running = 0;
  };
  double window_s_;
  std::size_t max_kept_;
  run_moments found_;
  bool seen_ = false;
  precision level_ = precision::fp16;
  std::uint64_t preemptions_ = 0;
  double first_start_s_ = 0;
  std::deque<span_part> window_;
  double window_sum_ = 0;  // running × seconds over window_'s whole steps
  double best_sum_ = -1;
};

// The moments of a whole run's steps, in order.
run_moments find_moments(std::span<const step_metrics> steps, double window_s = 60);

// The pace a load plays at when nobody chose one: the whole run in about `target_s` of
// wall-clock time, rounded to a 1-2-5 number of steps/s, never slower than `slowest` (a short
// load, like the built-in demo, keeps the pace it was tuned for) nor faster than `fastest` (the
// fastest paced choice the run panel offers).
double default_steps_per_second(std::uint64_t steps, double target_s = 180, double slowest = 60,
                                double fastest = 1000);

}  // namespace kvscope
