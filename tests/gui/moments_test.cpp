// Jump to: the moments the window finds for a known load are core's for the same run, and a
// jump lands the live view at exactly that step, forward (flat out) and back (a reset, then flat
// out), and plays on when asked.
#include <QAction>
#include <QMenu>
#include <QSignalSpy>
#include <QToolButton>

#include <gtest/gtest.h>

#include <algorithm>
#include <variant>

#include "jobs/engine_bridge.hpp"
#include "gui_test_support.hpp"
#include "jobs/background_run.hpp"
#include "window/main_window.hpp"
#include "window/comparison_controller.hpp"
#include "window/moments_controller.hpp"
#include "window/policy_controller.hpp"
#include "window/whatif_controller.hpp"
#include "run/moments.hpp"
#include "run/run_service.hpp"
#include "panels/run_panel.hpp"
#include "common/run_setup.hpp"
#include "temp_dir.hpp"

namespace kvscope::ui {
namespace {

// Core's moments of `run`, every step of it run by the run service.
run_moments momentsByTheRunService(const run_description& run) {
  moment_finder finder;
  run_to_end(run, [&](const engine& e) { finder.observe(e.last_metrics()); });
  return finder.moments();
}

bool momentsFound(MainWindow& w) { return w.moments()->moments() != nullptr; }

// The live view once it shows the engine paused at step `target` (steps done).
SnapshotPtr landedAt(MainWindow& w, std::uint64_t target) {
  const bool there = test::waitFor([&] {
    const SnapshotPtr s = w.bridge()->current();
    return s && s->step == target && !s->playing && !w.moments()->jumping();
  }, std::chrono::seconds(30));
  return there ? w.bridge()->current() : nullptr;
}

TEST(JumpTo, FindsTheMomentsOfTheRunAndLandsOnThem) {
  const run_description run = test::smallSession();
  runner* feed = nullptr;
  auto window = test::makeWindow(run, &feed);
  QToolButton* button = window->runPanel()->jumpButton();
  EXPECT_FALSE(button->isEnabled());  // until the moments are found
  EXPECT_TRUE(button->toolTip().startsWith(QStringLiteral("Finding the moments"))) << button->toolTip().toStdString();
  ASSERT_TRUE(test::waitFor([&] { return momentsFound(*window); }, std::chrono::seconds(60)));
  EXPECT_TRUE(button->isEnabled());

  const run_moments& found = *window->moments()->moments();
  const run_moments expected = momentsByTheRunService(run);
  ASSERT_TRUE(found.peak_pressure && expected.peak_pressure);
  EXPECT_EQ(found.steps, expected.steps);
  EXPECT_EQ(found.peak_pressure->step, expected.peak_pressure->step);
  EXPECT_EQ(found.busiest_minute->step, expected.busiest_minute->step);
  ASSERT_EQ(found.level_changes.size(), expected.level_changes.size());
  ASSERT_GE(found.level_changes.size(), 2u) << "the small load goes to q8 and back";
  for (std::size_t i = 0; i < found.level_changes.size(); ++i) {
    EXPECT_EQ(found.level_changes[i].step, expected.level_changes[i].step);
  }
  EXPECT_EQ(found.preemption_steps_total, expected.preemption_steps_total);

  // The menu names them with their time.
  QStringList texts;
  for (QAction* a : window->moments()->menu()->actions()) texts << a->text();
  EXPECT_TRUE(texts.join(QLatin1Char('\n')).contains(QStringLiteral("peak pressure"))) << texts.join(QLatin1Char('\n')).toStdString();

  // Forward to the peak: the live view is that step's snapshot.
  const moment peak = *found.peak_pressure;
  ASSERT_TRUE(window->moments()->jumpTo(peak, false));
  SnapshotPtr at = landedAt(*window, peak.step + 1);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->latest.step, peak.step);
  EXPECT_EQ(at->latest.kv_cache_usage_perc, peak.value);
  EXPECT_EQ(at->generation, 0u);
  EXPECT_EQ(window->bridge()->history().last_point().step, peak.step);
  EXPECT_EQ(window->bridge()->history().total(), peak.step + 1);  // the plots have every step on the way

  // Back to the first level change, before it: a reset, then flat out to it.
  const moment first = found.level_changes.front();
  ASSERT_LT(first.step, peak.step);
  ASSERT_TRUE(window->moments()->jumpTo(first, false));
  at = landedAt(*window, first.step + 1);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->generation, 1u);
  EXPECT_EQ(at->latest.step, first.step);
  EXPECT_EQ(at->latest.level, first.level);
  EXPECT_EQ(at->latest.sim_time_s, first.sim_time_s);

  // Forward to the next level change, playing on once there.
  const moment next = found.level_changes[1];
  ASSERT_TRUE(window->moments()->jumpTo(next, true));
  QSignalSpy landed(window->moments(), &MomentsController::landed);
  ASSERT_TRUE(test::waitFor([&] { return landed.count() == 1; }, std::chrono::seconds(30)));
  EXPECT_EQ(landed.front().front().toULongLong(), next.step + 1);
  ASSERT_TRUE(test::waitFor([&] { return window->bridge()->current()->step > next.step + 1; }));
  EXPECT_EQ(window->bridge()->current()->generation, 1u);  // no reset on the way
}

// The moments are found in accounting mode, which gives the same steps as the live run's real
// K/V bytes: a jump on a data-mode run lands on the moment found.
TEST(JumpTo, LandsOnTheMomentInDataMode) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(payload_mode::data), &feed);
  ASSERT_TRUE(test::waitFor([&] { return momentsFound(*window); }, std::chrono::seconds(60)));
  const moment peak = *window->moments()->moments()->peak_pressure;
  ASSERT_TRUE(window->moments()->jumpTo(peak, false));
  const SnapshotPtr at = landedAt(*window, peak.step + 1);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->latest.kv_cache_usage_perc, peak.value);
  EXPECT_EQ(at->latest.sim_time_s, peak.sim_time_s);
}

// A config changed mid-run: the moments are found again on the run the live engine is now on
// (its config change at the step it came), and a moment behind cannot be reached by a reset.
TEST(JumpTo, AConfigChangeFindsTheMomentsOfTheChangedRun) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  QToolButton* button = window->runPanel()->jumpButton();
  ASSERT_TRUE(test::waitFor([&] { return momentsFound(*window); }, std::chrono::seconds(60)));
  ASSERT_TRUE(test::stepAndShow(*window, *feed, 30));
  policy_config changed = window->policy()->config();
  changed.q8_threshold = 0.6f;
  window->policy()->apply(changed);
  EXPECT_FALSE(button->isEnabled());
  ASSERT_TRUE(test::waitFor([&] { return momentsFound(*window) && button->isEnabled(); }, std::chrono::seconds(60)));
  const run_description& ahead = window->moments()->ahead();
  ASSERT_EQ(ahead.commands.size(), 1u);
  EXPECT_EQ(ahead.commands[0].step, 30u);
  const run_moments& found = *window->moments()->moments();
  const run_moments expected = momentsByTheRunService(ahead);
  ASSERT_TRUE(found.peak_pressure);
  EXPECT_EQ(found.peak_pressure->step, expected.peak_pressure->step);
  EXPECT_EQ(found.level_changes_total, expected.level_changes_total);

  const moment peak = *found.peak_pressure;
  ASSERT_GT(peak.step, 30u);
  ASSERT_TRUE(window->moments()->jumpTo(peak, false));
  const SnapshotPtr at = landedAt(*window, peak.step + 1);
  ASSERT_TRUE(at);
  EXPECT_EQ(at->latest.kv_cache_usage_perc, peak.value);

  QSignalSpy said(window->moments(), &MomentsController::statusMessage);
  moment early;
  early.step = 10;
  EXPECT_FALSE(window->moments()->jumpTo(early, false));
  ASSERT_EQ(said.count(), 1);
  EXPECT_TRUE(said.front().front().toString().contains(QStringLiteral("changed its config"))) << said.front().front().toString().toStdString();
  EXPECT_EQ(window->bridge()->current()->generation, 0u);  // nothing was reset
}

// Until a pace is chosen, the load's length sets it (the whole load in about three minutes);
// a pace given (flat out here, as a replay or --speed 0 has) stays.
TEST(JumpTo, TheDefaultPaceComesFromTheLoadsLength) {
  run_description s = test::smallSession();
  s.load_spec = "gen:rate=0.08,prompt=fixed:64,output=fixed:1000,count=30,seed=1";  // ~20,000 steps
  MainWindow::Options o;
  o.persistSettings = false;
  o.pollIntervalMs = 10;
  for (const double given : {demoStepsPerSecond, 0.0}) {
    MainWindow window(test::makeTestRunner(s), s, given, o);
    ASSERT_TRUE(test::waitFor([&] { return momentsFound(window); }, std::chrono::seconds(60)));
    if (given == 0.0) {
      EXPECT_EQ(window.runPanel()->stepsPerSecond(), 0.0);
      continue;
    }
    const double pace = default_steps_per_second(window.moments()->moments()->steps);
    EXPECT_GT(pace, demoStepsPerSecond);
    EXPECT_EQ(window.runPanel()->stepsPerSecond(), pace);
    // …and the engine was told.
    EXPECT_TRUE(test::waitFor([&] {
      const SnapshotPtr now = window.bridge()->current();
      return std::any_of(now->command_log.begin(), now->command_log.end(), [&](const logged_command& c) {
        const auto* speed = std::get_if<speed_command>(&c.command);
        return speed && speed->steps_per_second == pace;
      });
    }));
  }
}

// The what-if's whole run of the current config carries the moments too: once the run ahead is
// exactly that run (here: the what-if applied), its moments are taken, not found by a run again;
// and only then.
TEST(JumpTo, TakesTheMomentsFromTheWhatIfsRunOfExactlyTheRunAhead) {
  test::temp_dir dir;
  const run_description run = test::smallSession();
  MainWindow::Options o;
  o.persistSettings = false;
  o.pollIntervalMs = 10;
  o.runsDirectory = QString::fromStdString(dir.path().string());
  MainWindow window(test::makeTestRunner(run), run, 0.0, o);
  const MomentsController* moments = window.moments();
  WhatIfController* whatIf = window.comparison()->whatIf();
  whatIf->setDebounceMs(0);
  // No whole run of this config yet: the moments take a run of their own.
  ASSERT_TRUE(test::waitFor([&] { return momentsFound(window); }, std::chrono::seconds(60)));
  EXPECT_EQ(moments->jobs()->started(), 1);

  // A what-if (the live run left as it is), then the current config's whole run: the moments
  // are not found again.
  policy_config other = run.options.policy;
  other.q4_threshold = 0.8f;
  whatIf->propose(other);
  ASSERT_TRUE(test::waitFor([&] { return whatIf->whatIf() && whatIf->current(); },
                            std::chrono::seconds(60)));
  EXPECT_EQ(moments->jobs()->started(), 1);

  // Applied, the what-if's run is the current config's whole run and the run ahead at once.
  const OutcomePtr chosen = whatIf->whatIf();
  QSignalSpy started(&window, &MainWindow::runStarted);
  ASSERT_TRUE(window.comparison()->applyWhatIf());
  ASSERT_TRUE(test::waitFor([&] { return started.count() == 1; }, std::chrono::seconds(30)));
  ASSERT_TRUE(test::waitFor([&] { return momentsFound(window); }, std::chrono::seconds(30)));
  EXPECT_EQ(moments->jobs()->started(), 1);
  EXPECT_EQ(moments->moments(), chosen->moments.get());
  EXPECT_TRUE(sameRun(moments->ahead(), chosen->run));

  // Another seed, another load: no whole run of it yet, so the moments take a run again.
  window.resetRun(seedOf(window.currentRun()) + 1);
  ASSERT_TRUE(test::waitFor([&] { return started.count() == 2; }, std::chrono::seconds(30)));
  ASSERT_TRUE(test::waitFor([&] { return momentsFound(window); }, std::chrono::seconds(60)));
  EXPECT_EQ(moments->jobs()->started(), 2);
}

}  // namespace
}  // namespace kvscope::ui
