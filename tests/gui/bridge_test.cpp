// The bridge between the GUI and a real runner (every step once, resets, a new feed, the
// metrics history), the runs the app makes from sessions, and the off-thread run loader.
#include <QApplication>
#include <QSignalSpy>

#include <gtest/gtest.h>

#include "run/run_service.hpp"
#include "engine/engine.hpp"
#include "jobs/engine_bridge.hpp"
#include "gui_test_support.hpp"
#include "io/metrics_csv.hpp"
#include "load/generator_spec.hpp"
#include "jobs/run_loader.hpp"
#include "common/run_setup.hpp"
#include "temp_dir.hpp"
#include "util/byte_size.hpp"

namespace kvscope::ui {
namespace {

TEST(EngineBridge, SeesEveryStepOfARealRunnerOnceAndKeepsThemForExport) {
  const run_description s = test::smallSession();
  auto* feed = test::makeTestRunner(s, true).release();
  EngineBridge bridge{std::unique_ptr<engine_feed>(feed)};
  std::vector<std::uint64_t> steps;
  QObject::connect(&bridge, &EngineBridge::metricsArrived, [&](const MetricsPtr& m) {
    for (const auto& x : *m) steps.push_back(x.step);
  });
  ASSERT_TRUE(test::waitFor([&] {
    bridge.poll();
    return bridge.current() && bridge.current()->finished;
  }));
  ASSERT_GT(steps.size(), 1000u);
  for (std::size_t i = 0; i < steps.size(); ++i) ASSERT_EQ(steps[i], i);
  EXPECT_EQ(bridge.missedSteps(), 0u);
  EXPECT_EQ(bridge.history().total(), steps.size());
  // The same metrics as the engine run headless.
  const auto reference = run_to_end(s).final_engine;
  EXPECT_EQ(metrics_csv_row(bridge.history().recent().back()), metrics_csv_row(reference->last_metrics()));
}

TEST(EngineBridge, AResetOfTheRealRunnerStartsTheHistoryOver) {
  auto* feed = test::makeTestRunner(test::smallSession()).release();
  EngineBridge bridge{std::unique_ptr<engine_feed>(feed)};
  QSignalSpy reset(&bridge, &EngineBridge::historyReset);
  feed->post(step_command{30});
  ASSERT_TRUE(test::waitFor([&] {
    bridge.poll();
    return bridge.current() && bridge.current()->step == 30;
  }));
  EXPECT_EQ(bridge.history().total(), 30u);
  feed->post(reset_command{});
  ASSERT_TRUE(test::waitFor([&] {
    bridge.poll();
    return bridge.current()->generation == 1;
  }));
  EXPECT_EQ(reset.count(), 1);
  EXPECT_EQ(bridge.history().total(), 0u);
}

TEST(EngineBridge, ANewFeedStartsOverAndReportsItsPolicy) {
  EngineBridge bridge{test::makeTestRunner(test::smallSession())};
  QSignalSpy reset(&bridge, &EngineBridge::historyReset);
  QSignalSpy policy(&bridge, &EngineBridge::enginePolicy);
  bridge.poll();
  EXPECT_EQ(policy.count(), 1) << "the first snapshot tells the GUI the engine's policy";
  run_description other = test::smallSession();
  other.options.policy = *policy_preset("aggressive");
  bridge.setFeed(makeRunner(other, {}));
  EXPECT_EQ(reset.count(), 1);
  ASSERT_TRUE(test::waitFor([&] { bridge.poll(); return policy.count() == 2; }));
  EXPECT_EQ(policy.back().front().value<policy_config>(), *policy_preset("aggressive"));
}

// Snapshot order the engine cannot stage on demand: an older snapshot arriving after the GUI
// posted a policy must not pull the sliders back.
TEST(EngineBridge, PostedPolicyIsNotPulledBackByOlderSnapshots) {
  auto* feed = new test::RecordingFeed(test::emptySnapshot(16));
  EngineBridge bridge{std::unique_ptr<engine_feed>(feed)};
  QSignalSpy policy(&bridge, &EngineBridge::enginePolicy);
  bridge.poll();
  policy_config mine;
  mine.q8_threshold = 0.6f;
  bridge.postPolicy(mine);
  ASSERT_EQ(test::reconfigures(feed->log).size(), 1u);
  auto old = test::emptySnapshot(16);
  old->step = 1;
  old->policy.q8_threshold = 0.7f;  // something in between, before ours was applied
  feed->snapshot = old;
  bridge.poll();
  EXPECT_EQ(policy.count(), 1) << "only the first one";
}

TEST(RunSetup, TheDemoClimbsThroughQ8AndQ4AndFallsBackWithinAMinute) {
  std::vector<std::pair<std::uint64_t, precision>> changes;
  precision last = precision::fp16;
  const auto e = run_to_end(demoSession(), [&](const engine& x) {
    if (x.last_metrics().level != last) changes.emplace_back(x.last_metrics().step, x.last_metrics().level);
    last = x.last_metrics().level;
  });
  std::uint64_t firstQ8 = 0, firstQ4 = 0;
  for (auto [step, level] : changes) {
    if (level == precision::q8 && !firstQ8) firstQ8 = step;
    if (level == precision::q4 && !firstQ4) firstQ4 = step;
  }
  ASSERT_GT(firstQ8, 0u);
  ASSERT_GT(firstQ4, firstQ8);
  ASSERT_FALSE(changes.empty());
  EXPECT_EQ(changes.back().second, precision::fp16);
  const double minute = 60 * demoStepsPerSecond;
  EXPECT_LT(static_cast<double>(changes.back().first), minute) << "back to fp16 within the first minute";
}

TEST(RunSetup, ReseedRewritesTheGeneratorSeedAndTheDataSeed) {
  const run_description s = reseeded(demoSession(), 42);
  EXPECT_EQ(seedOf(s), 42u);
  EXPECT_EQ(s.options.seed, 42u);
  const auto spec = parse_generator_spec(s.load_spec);
  ASSERT_TRUE(spec) << spec.error();
  EXPECT_EQ(spec->seed, 42u);
  EXPECT_EQ(spec->rate, 6.0);
  run_description trace = demoSession();
  trace.load_spec = "/data/trace.csv";
  EXPECT_EQ(reseeded(trace, 9).load_spec, "/data/trace.csv");
  EXPECT_EQ(seedOf(reseeded(trace, 9)), 9u);
}

TEST(RunSetup, CliEquivalentAndHeadlessReport) {
  EXPECT_EQ(cliEquivalent(demoSession()),
            std::string("kvscope-cli simulate --load '") + demoLoadSpec +
                "' --model tiny --budget 16MiB --payload data --seed 1");
  const std::string text = headlessReport(test::smallSession());
  EXPECT_NE(text.find("level changes:"), std::string::npos) << text;
  EXPECT_NE(text.find("requests        120 total"), std::string::npos) << text;
}

// `auto` is stored as 0 bytes; a person is shown what it chose, never "0 B".
TEST(RunSetup, AnAutoBudgetIsShownAsWhatItChose) {
  EXPECT_EQ(budgetLabel(demoSession().options), "16 MiB");
  engine_options o;
  o.model = "llama3-8b";
  o.budget_bytes = 0;
  o.gpu = "h100";
  EXPECT_GT(resolvedBudget(o), 40ull << 30);
  EXPECT_EQ(budgetLabel(o), "auto: " + format_byte_size(resolvedBudget(o)));
  o.gpu.clear();  // nothing to size it on
  EXPECT_EQ(resolvedBudget(o), 0u);
  EXPECT_EQ(budgetLabel(o), "auto");
}

TEST(RunLoader, BuildsARunnerOffTheGuiThreadAndDropsStaleJobs) {
  RunLoader loader;
  int delivered = 0;
  RunLoader::Result last;
  const auto done = [&](RunLoader::Result&& r) {
    ++delivered;
    last = std::move(r);
  };
  run_description first = test::smallSession();
  loader.start(first, {}, done);
  run_description second = reseeded(test::smallSession(), 7);
  const quint64 id = loader.start(second, {}, done);
  EXPECT_GT(id, 0u);
  ASSERT_TRUE(test::waitFor([&] { return !loader.busy(); }));
  QApplication::processEvents();
  EXPECT_EQ(delivered, 1) << "only the newest job";
  ASSERT_TRUE(last.feed) << last.error.toStdString();
  EXPECT_EQ(last.run.load_spec, second.load_spec);
}

TEST(RunLoader, ABadTraceRowIsReportedWithFileAndLine) {
  test::temp_dir dir;
  const std::string trace = dir.file("bad.csv");
  std::string text = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  for (int i = 0; i < 300; ++i) text += "2023-11-16 18:15:46." + std::to_string(100 + i) + ",100,20\n";
  text += "2023-11-16 18:15:47.000,lots,20\n";
  test::write_text(trace, text);
  run_description s = test::smallSession();
  s.load_spec = trace;
  RunLoader loader;
  RunLoader::Result result;
  loader.start(s, {}, [&](RunLoader::Result&& r) { result = std::move(r); });
  ASSERT_TRUE(test::waitFor([&] { return !loader.busy(); }));
  EXPECT_FALSE(result.feed);
  EXPECT_TRUE(result.error.contains(QStringLiteral("bad.csv:302: column 'ContextTokens'")))
      << result.error.toStdString();
}

}  // namespace
}  // namespace kvscope::ui
