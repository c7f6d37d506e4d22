// The moments a viewer jumps to: peak pressure, busiest minute, level changes and preemptions,
// on steps made by hand (every moment known in advance) and on a real run (against the engine's
// own counters); and the default pace from a run's length.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "engine_test_support.hpp"
#include "run/moments.hpp"
#include "run/run_ahead.hpp"
#include "run/run_service.hpp"

namespace kvscope {
namespace {

// 200 steps of one simulated second each: one sequence running, ten in steps 100-159; pressure
// 0.1 but 0.9 at steps 120 and 150; q8 from 50, q4 from 70, q8 from 90, fp16 from 110; two
// sequences preempted at step 130 and one at 131.
std::vector<step_metrics> handMadeSteps() {
  std::vector<step_metrics> steps(200);
  for (std::uint64_t i = 0; i < steps.size(); ++i) {
    step_metrics& m = steps[i];
    m.step = i;
    m.step_seconds = 1;
    m.sim_time_s = static_cast<double>(i + 1);
    m.num_requests_running = i >= 100 && i < 160 ? 10 : 1;
    m.kv_cache_usage_perc = i == 120 || i == 150 ? 0.9 : 0.1;
    m.level = i >= 110 ? precision::fp16 : i >= 90 ? precision::q8 : i >= 70 ? precision::q4
                                                                    : i >= 50 ? precision::q8 : precision::fp16;
    m.num_preemptions_total = i >= 131 ? 3 : i >= 130 ? 2 : 0;
  }
  return steps;
}

TEST(Moments, FindsEachMomentOfKnownSteps) {
  const run_moments found = find_moments(handMadeSteps());
  EXPECT_EQ(found.steps, 200u);
  EXPECT_DOUBLE_EQ(found.sim_time_s, 200.0);
  ASSERT_TRUE(found.peak_pressure);
  EXPECT_EQ(found.peak_pressure->step, 120u);  // the first of two equal peaks
  EXPECT_DOUBLE_EQ(found.peak_pressure->value, 0.9);
  EXPECT_DOUBLE_EQ(found.peak_pressure->sim_time_s, 121.0);

  ASSERT_TRUE(found.busiest_minute);
  EXPECT_EQ(found.busiest_minute->step, 100u);  // lands where the minute starts
  EXPECT_DOUBLE_EQ(found.busiest_minute->sim_time_s, 100.0);
  EXPECT_DOUBLE_EQ(found.busiest_minute->until_s, 160.0);
  EXPECT_DOUBLE_EQ(found.busiest_minute->value, 10.0);

  ASSERT_EQ(found.level_changes.size(), 4u);
  EXPECT_EQ(found.level_changes_total, 4u);
  const std::vector<std::pair<std::uint64_t, precision>> levels = {
      {50, precision::q8}, {70, precision::q4}, {90, precision::q8}, {110, precision::fp16}};
  for (std::size_t i = 0; i < levels.size(); ++i) {
    EXPECT_EQ(found.level_changes[i].step, levels[i].first);
    EXPECT_EQ(found.level_changes[i].level, levels[i].second);
  }
  ASSERT_TRUE(found.first_at_level[ordinal(precision::q4)]);
  EXPECT_EQ(found.first_at_level[ordinal(precision::q4)]->step, 70u);
  EXPECT_EQ(found.first_at_level[ordinal(precision::q8)]->step, 50u);  // not 90: the first
  EXPECT_EQ(found.first_at_level[ordinal(precision::fp16)]->step, 110u);
  EXPECT_FALSE(found.first_at_level[ordinal(precision::fp8)]);
  ASSERT_EQ(found.preemptions.size(), 2u);
  EXPECT_EQ(found.preemption_steps_total, 2u);
  EXPECT_EQ(found.preemptions[0].step, 130u);
  EXPECT_DOUBLE_EQ(found.preemptions[0].value, 2.0);
  EXPECT_EQ(found.preemptions[1].step, 131u);
  EXPECT_DOUBLE_EQ(found.preemptions[1].value, 1.0);
}

// A step that straddles the window's start counts only for its part inside the minute.
TEST(Moments, BusiestMinuteCountsAStraddlingStepInPart) {
  std::vector<step_metrics> steps(3);
  const double lengths[] = {50, 20, 40};  // ends at 50, 70, 110
  const std::uint32_t running[] = {4, 1, 3};
  double t = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    t += lengths[i];
    steps[i].step = i;
    steps[i].step_seconds = lengths[i];
    steps[i].sim_time_s = t;
    steps[i].num_requests_running = running[i];
  }
  // Windows ending at 50 (0-50: 200), 70 (10-70: 4*40 + 20 = 180; 220 if the first step
  // counted whole), 110 (50-110: 20 + 120 = 140).
  const run_moments found = find_moments(steps);
  ASSERT_TRUE(found.busiest_minute);
  EXPECT_EQ(found.busiest_minute->step, 0u);
  EXPECT_DOUBLE_EQ(found.busiest_minute->sim_time_s, 0.0);
  EXPECT_DOUBLE_EQ(found.busiest_minute->value, 4.0);  // 200 sequence-seconds over the 50 s there were
  EXPECT_FALSE(moment_finder().moments().busiest_minute);
  // A 30 s window: 20-50 holds 4 × 30 = 120 of the first step's 200, more than 40-70 (60) or
  // 80-110 (90).
  const run_moments shorter = find_moments(steps, 30);
  ASSERT_TRUE(shorter.busiest_minute);
  EXPECT_EQ(shorter.busiest_minute->step, 0u);
  EXPECT_DOUBLE_EQ(shorter.busiest_minute->sim_time_s, 20.0);
  EXPECT_DOUBLE_EQ(shorter.busiest_minute->until_s, 50.0);
  EXPECT_DOUBLE_EQ(shorter.busiest_minute->value, 4.0);
}

TEST(Moments, KeepsTheFirstFewAndCountsTheRest) {
  moment_finder finder(60, 1);
  for (const step_metrics& m : handMadeSteps()) finder.observe(m);
  EXPECT_EQ(finder.moments().level_changes.size(), 1u);
  EXPECT_EQ(finder.moments().level_changes_total, 4u);
  EXPECT_TRUE(finder.moments().first_at_level[ordinal(precision::q4)]) << "kept beyond the list";
  EXPECT_EQ(finder.moments().preemptions.size(), 1u);
  EXPECT_EQ(finder.moments().preemption_steps_total, 2u);
}

// On a real run the level changes and preemptions agree with the engine's own counters, and
// the peak is the highest pressure any step had.
TEST(Moments, AgreeWithTheEnginesCountersOnARealRun) {
  run_description run;
  run.load_spec = "gen:rate=30,prompt=lognormal:600:0.6,output=uniform:150:0.5,count=120,seed=3";
  run.options = test::tiny_options(4ull << 20, payload_mode::accounting);
  moment_finder finder;
  double highest = -1;
  const auto result = run_to_end(run, [&](const engine& e) {
    finder.observe(e.last_metrics());
    highest = std::max(highest, e.last_metrics().kv_cache_usage_perc);
  });
  const run_moments& found = finder.moments();
  EXPECT_EQ(found.steps, result.summary.steps);
  ASSERT_GT(result.summary.level_transitions, 0u) << "the load should reach q8";
  EXPECT_EQ(found.level_changes_total, result.summary.level_transitions);
  std::uint64_t preempted = 0;
  for (const moment& p : found.preemptions) preempted += static_cast<std::uint64_t>(p.value);
  EXPECT_EQ(preempted, result.summary.preemptions);
  ASSERT_TRUE(found.peak_pressure);
  EXPECT_DOUBLE_EQ(found.peak_pressure->value, highest);
  EXPECT_LE(found.busiest_minute->sim_time_s, found.busiest_minute->until_s);
}

TEST(Moments, DefaultPacePlaysTheWholeLoadInAFewMinutes) {
  EXPECT_DOUBLE_EQ(default_steps_per_second(2900), 60.0);      // the demo keeps its pace
  EXPECT_DOUBLE_EQ(default_steps_per_second(93000), 500.0);    // 517 → 500: 3.1 minutes
  EXPECT_DOUBLE_EQ(default_steps_per_second(30000), 200.0);    // 167 → 200
  EXPECT_DOUBLE_EQ(default_steps_per_second(50'000'000), 1000.0);
  EXPECT_DOUBLE_EQ(default_steps_per_second(0), 60.0);
}

// The run ahead of a live engine: its own script until the front end acts, then the live log
// after its last reset; a reset replays it only when its commands are all at step 0.
TEST(RunAhead, FollowsTheLiveLogFromItsLastReset) {
  const auto aheadConfig = [](float q8) { policy_config c; c.q8_threshold = q8; return c; };
  run_description started;
  started.options.policy = aheadConfig(0.7f);
  started.commands = {{5, pause_command{}}, {10, reconfigure_command{aheadConfig(0.6f)}}};
  started.steps = 40;
  const run_description untouched = run_ahead(started, {}, false);
  ASSERT_EQ(untouched.commands.size(), 1u);  // the pause does not act on the engine
  EXPECT_EQ(untouched.commands[0].step, 10u);
  EXPECT_EQ(untouched.steps, 0u);
  EXPECT_FALSE(reset_replays(untouched, aheadConfig(0.6f)));

  const std::vector<logged_command> log = {{10, reconfigure_command{aheadConfig(0.6f)}},
                                           {30, reset_command{}},
                                           {0, reconfigure_command{aheadConfig(0.5f)}},
                                           {0, play_command{}}};
  const run_description changed = run_ahead(started, log, true);
  ASSERT_EQ(changed.commands.size(), 1u);
  EXPECT_EQ(changed.commands[0].step, 0u);
  EXPECT_TRUE(reset_replays(changed, aheadConfig(0.5f)));
  EXPECT_FALSE(reset_replays(changed, aheadConfig(0.7f)));
  EXPECT_TRUE(reset_replays(run_ahead(started, {}, true), aheadConfig(0.7f)));
  EXPECT_TRUE(same_commands(changed.commands, run_ahead(started, log, true).commands));
  EXPECT_FALSE(same_commands(changed.commands, untouched.commands));
}

}  // namespace
}  // namespace kvscope
