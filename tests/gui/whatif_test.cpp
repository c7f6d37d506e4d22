// The what-if: a changed threshold is run over the whole load in the background and drawn as a
// ghost; the compare table's numbers are those of the run service and of the CLI for the same
// run, bit for bit; a stale job's result is dropped; Apply makes the what-if current.
#include <QLineEdit>
#include <QPushButton>
#include <QComboBox>
#include <QSignalSpy>
#include <QSlider>
#include <QTest>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

#include "panels/compare_panel.hpp"
#include "window/comparison_controller.hpp"
#include "jobs/engine_bridge.hpp"
#include "panels/engine_options_box.hpp"
#include "panels/load_panel.hpp"
#include "gui_test_support.hpp"
#include "io/session_file.hpp"
#include "window/main_window.hpp"
#include "plots/memory_plot.hpp"
#include "panels/family_box.hpp"
#include "plots/ghost_graphs.hpp"
#include "panels/policy_panel.hpp"
#include "common/qcustomplot_include.hpp"
#include "plots/pressure_plot.hpp"
#include "process.hpp"
#include "run/run_service.hpp"
#include "run/summary_compare.hpp"
#include "common/run_setup.hpp"
#include "panels/run_store.hpp"
#include "temp_dir.hpp"
#include "window/whatif_controller.hpp"
#include "plots/whatif_thresholds.hpp"

namespace kvscope::ui {
namespace {

// Equal as doubles, bit for bit (NaN equals NaN: both unmeasured).
bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// A summary JSON value by dotted key ("latency.ttft_s.p50" nests); NaN for null.
double jsonValue(const nlohmann::json& j, std::string_view key) {
  const nlohmann::json* at = &j;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = key.find('.', start);
    at = &at->at(std::string(key.substr(start, dot - start)));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return at->is_null() ? NAN : at->get<double>();
}

// The compare table's what-if column holds exactly `values`, bit for bit, a headline metric a row.
void expectWhatIfColumn(MainWindow& w, const std::vector<double>& values) {
  const auto keys = headline_metric_keys();
  const ComparePanel* table = w.comparison()->comparePanel();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_TRUE(same(table->value(static_cast<int>(i), ComparePanel::otherColumn), values[i])) << keys[i];
  }
}

bool ghostShown(MainWindow& w) {
  const WhatIfController* whatIf = w.comparison()->whatIf();
  return whatIf->whatIf() && whatIf->current() && w.pressurePlot()->ghostPoints() > 0 &&
         w.memoryPlot()->ghostPoints() > 0;
}

TEST(WhatIf, GhostAndCompareTableMatchTheRunServiceAndTheCli) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  ASSERT_TRUE(test::stepAndShow(*window, *feed, 20));
  window->policyPanel()->slider(PolicyPanel::q8Threshold)->setValue(600);
  ASSERT_TRUE(test::waitFor([&] { return ghostShown(*window); }, std::chrono::seconds(60)));
  std::printf("what-if ghost shown %lld ms after the change (250 ms debounce included)\n",
              static_cast<long long>(window->comparison()->whatIf()->lastLatencyMs()));

  run_description whatIf = wholeRun(window->currentRun());
  whatIf.options.policy = window->policyPanel()->config();
  EXPECT_EQ(whatIf.options.policy.q8_threshold, 0.6f);
  const run_description current = wholeRun(window->currentRun());
  const std::vector<double> expectWhatIf = headline_values(run_to_end(whatIf).summary);
  const std::vector<double> expectCurrent = headline_values(run_to_end(current).summary);
  ASSERT_NE(expectWhatIf, expectCurrent);  // the threshold changed something, or this proves little

  // The CLI on the same run, as a session file: its summary JSON has shortest round-trip doubles.
  test::temp_dir dir;
  ASSERT_TRUE(write_session(dir.file("whatif.kvscope.json"), whatIf));
  const auto cli = test::run_process({test::cli_path(), "replay", "--session", dir.file("whatif.kvscope.json"),
                                      "--summary-json", "-"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  const auto json = nlohmann::json::parse(cli.out);

  const ComparePanel* table = window->comparison()->comparePanel();
  const auto keys = headline_metric_keys();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const int row = table->rowOf(keys[i]);
    ASSERT_GE(row, 0);
    EXPECT_TRUE(same(table->value(row, ComparePanel::otherColumn), expectWhatIf[i])) << keys[i];
    EXPECT_TRUE(same(table->value(row, ComparePanel::otherColumn), jsonValue(json, keys[i]))) << keys[i];
    EXPECT_TRUE(same(table->value(row, ComparePanel::referenceColumn), expectCurrent[i])) << keys[i];
  }
  EXPECT_TRUE(table->applyButton()->isEnabled());
  // One line on top says what the what-if changes, as core words it for these two runs.
  const auto summary = change_summary(compare_headlines(expectCurrent, expectWhatIf));
  EXPECT_TRUE(table->verdict().endsWith(QString::fromStdString(summary))) << table->verdict().toStdString();
  EXPECT_TRUE(table->verdict().startsWith(table->columnName(ComparePanel::otherColumn) + QStringLiteral(": ")));
}

// The budget is a what-if too: the same load on a bigger cache, compared with the current one.
TEST(WhatIf, ABudgetEditIsAWhatIfOfTheSameLoad) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  window->loadPanel()->engineBox()->budgetEdit()->setText(QStringLiteral("8MiB"));
  ASSERT_TRUE(test::waitFor([&] { return ghostShown(*window); }, std::chrono::seconds(60)));
  run_description expected = wholeRun(window->currentRun());
  expected.options.budget_bytes = 8ull << 20;
  EXPECT_EQ(session_to_json(window->comparison()->whatIf()->whatIf()->run), session_to_json(expected));
  const std::vector<double> values = headline_values(run_to_end(expected).summary);
  expectWhatIfColumn(*window, values);
  EXPECT_EQ(window->currentRun().options.budget_bytes, 4ull << 20);  // the live run is untouched
}

// The GPU is a what-if too: the same load with the roofline model's step times on that GPU, so
// its latencies differ from the linear model's.
TEST(WhatIf, AGpuChoiceIsAWhatIfWithThatGpusTiming) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  QComboBox* gpu = window->loadPanel()->engineBox()->gpuBox();
  const int h100 = gpu->findData(QStringLiteral("h100"));
  ASSERT_GT(h100, 0);
  gpu->setCurrentIndex(h100);
  ASSERT_TRUE(test::waitFor([&] { return ghostShown(*window); }, std::chrono::seconds(60)));
  run_description expected = wholeRun(window->currentRun());
  expected.options.gpu = "h100";
  EXPECT_EQ(session_to_json(window->comparison()->whatIf()->whatIf()->run), session_to_json(expected));
  const std::vector<double> values = headline_values(run_to_end(expected).summary);
  const std::vector<double> linear = headline_values(run_to_end(wholeRun(window->currentRun())).summary);
  EXPECT_NE(values, linear);  // another timing model: the latencies moved
  expectWhatIfColumn(*window, values);
  EXPECT_EQ(window->currentRun().options.gpu, "");  // the live run is untouched
}

// A family chosen in the policy panel is a what-if of that family, whole run against whole run.
TEST(WhatIf, AFamilyChoiceIsAWhatIfOfThatFamily) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  QComboBox* family = window->policyPanel()->familyBox()->familyBox();
  family->setCurrentIndex(family->findText(QStringLiteral("static")));
  ASSERT_TRUE(test::waitFor([&] { return ghostShown(*window); }, std::chrono::seconds(60)));
  run_description expected = wholeRun(window->currentRun());
  expected.options.policy.family = policy_family::fixed;
  EXPECT_EQ(session_to_json(window->comparison()->whatIf()->whatIf()->run), session_to_json(expected));
  const std::vector<double> values = headline_values(run_to_end(expected).summary);
  expectWhatIfColumn(*window, values);
}

// The what-if's thresholds are drawn beside its EWMA (and the hysteresis band below each), q3's
// only when it has one; a what-if of another family has none.
TEST(WhatIf, ItsThresholdsAreDrawnOnThePressurePlot) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  const WhatIfThresholds& drawn = window->pressurePlot()->whatIfThresholds();
  EXPECT_FALSE(drawn.shown());
  // As `kvscope --what-if FILE`: the live run keeps its config, whose lines the plot draws.
  policy_config whatIf = window->currentRun().options.policy;
  whatIf.q8_threshold = 0.5f;
  whatIf.q4_threshold = 0.8f;
  window->comparison()->whatIf()->propose(whatIf);
  ASSERT_TRUE(test::waitFor([&] { return ghostShown(*window); }, std::chrono::seconds(60)));
  ASSERT_TRUE(drawn.shown());
  EXPECT_EQ(drawn.q8LineValue(), double{whatIf.q8_threshold});
  EXPECT_EQ(drawn.q4BandBottom(), double{whatIf.q4_threshold} - double{whatIf.hysteresis});
  EXPECT_FALSE(drawn.q3Shown());
  // A what-if with a q3 threshold draws q3's line too.
  whatIf.max_level = precision::q3;
  whatIf.q3_threshold = 0.9f;
  window->comparison()->whatIf()->propose(whatIf);
  ASSERT_TRUE(test::waitFor([&] {
    return ghostShown(*window) && window->comparison()->whatIf()->whatIf()->run.options.policy.q3_threshold;
  }, std::chrono::seconds(60)));
  EXPECT_TRUE(drawn.q3Shown());
  whatIf.family = policy_family::fixed;
  window->comparison()->whatIf()->propose(whatIf);
  ASSERT_TRUE(test::waitFor([&] {
    return ghostShown(*window) && window->comparison()->whatIf()->whatIf()->run.options.policy.family == policy_family::fixed;
  }, std::chrono::seconds(60)));
  EXPECT_FALSE(drawn.shown());
}

// How soon the ghost follows a change on the built-in demo (printed, not asserted: the machine
// decides). The issue asks for under a second.
TEST(WhatIf, OnTheDemoTheGhostFollowsAChange) {
  const run_description demo = demoSession();
  auto window = test::makeWindow(demo);
  window->policyPanel()->slider(PolicyPanel::q8Threshold)->setValue(600);
  ASSERT_TRUE(test::waitFor([&] { return window->pressurePlot()->ghostPoints() > 0; }, std::chrono::seconds(60)));
  std::printf("demo: what-if ghost shown %lld ms after the change (250 ms debounce included)\n",
              static_cast<long long>(window->comparison()->whatIf()->lastLatencyMs()));
  EXPECT_GT(window->memoryPlot()->ghostPoints(), 1000u);  // the whole run: about 2,900 steps
  // Each dashed line of the memory plot runs over a wider halo of the background, drawn under it,
  // so it reads where it follows the edge of a filled area.
  QCustomPlot* memory = window->memoryPlot()->customPlot();
  const auto indexOf = [&](const QCPAbstractPlottable* p) {
    for (int i = 0; i < memory->plottableCount(); ++i) {
      if (memory->plottable(i) == p) return i;
    }
    return -1;
  };
  for (std::size_t line = 0; line < 5; ++line) {
    const QCPGraph* dashed = window->memoryPlot()->ghost().graph(line);
    const QCPGraph* halo = window->memoryPlot()->ghost().halo(line);
    ASSERT_NE(halo, nullptr);
    EXPECT_TRUE(halo->visible());
    EXPECT_EQ(halo->dataCount(), dashed->dataCount());
    EXPECT_LT(indexOf(halo), indexOf(dashed)) << "under its line";
    EXPECT_GT(halo->pen().widthF(), dashed->pen().widthF() + 2);
    EXPECT_EQ(halo->pen().color().rgb(), memory->axisRect()->backgroundBrush().color().rgb());
  }
}

double shareIn(const std::string& path) {
  const auto j = nlohmann::json::parse(test::read_text(path));
  return j.at("provenance").at("metrics").at("config_share_of_run").get<double>();
}

// A policy export's provenance says which share of the run its config governed, and describes a
// whole run of that config once there is one.
TEST(WhatIf, PolicyExportSaysWhichShareOfTheRunItsConfigGoverned) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  window->comparison()->whatIf()->setDebounceMs(600000);  // no what-if yet: the live run alone
  ASSERT_TRUE(test::stepAndShow(*window, *feed, 20));
  window->policyPanel()->slider(PolicyPanel::q8Threshold)->setValue(600);
  ASSERT_TRUE(test::stepAndShow(*window, *feed, 20));
  ASSERT_TRUE(test::waitFor([&] { return window->bridge()->current()->summary != nullptr; }));
  test::temp_dir dir;
  QString error;
  ASSERT_TRUE(window->exportPolicyConfig(QString::fromStdString(dir.file("half.json")), &error)) << error.toStdString();
  EXPECT_EQ(shareIn(dir.file("half.json")), 0.5);  // steps 20..39 of 40
  window->comparison()->whatIf()->setDebounceMs(0);
  window->comparison()->whatIf()->propose(window->policyPanel()->config());
  ASSERT_TRUE(test::waitFor([&] { return window->comparison()->whatIf()->whatIf() != nullptr; }, std::chrono::seconds(60)));
  ASSERT_TRUE(window->exportPolicyConfig(QString::fromStdString(dir.file("whole.json")), &error));
  EXPECT_EQ(shareIn(dir.file("whole.json")), 1.0);
}

TEST(WhatIf, AStaleJobsResultIsDropped) {
  BackgroundRun jobs;
  QSignalSpy finished(&jobs, &BackgroundRun::finished);
  run_description slow = test::smallSession(payload_mode::data);  // the longer of the two
  const quint64 stale = jobs.start(slow);
  run_description fresh = test::smallSession();
  fresh.options.policy.q8_threshold = 0.5f;
  const quint64 newest = jobs.start(fresh);
  ASSERT_NE(stale, newest);
  ASSERT_TRUE(test::waitFor([&] { return finished.count() >= 1 && jobs.droppedResults() >= 1; },
                            std::chrono::seconds(60)));
  QTest::qWait(50);
  ASSERT_EQ(finished.count(), 1);
  EXPECT_EQ(finished.front().front().value<quint64>(), newest);
  const auto outcome = finished.front().back().value<OutcomePtr>();
  EXPECT_EQ(outcome->run.options.policy.q8_threshold, 0.5f);
  EXPECT_EQ(jobs.droppedResults(), 1);
}

TEST(WhatIf, ANewerChangeWinsOverAStaleOne) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  WhatIfController* whatIf = window->comparison()->whatIf();
  whatIf->setDebounceMs(0);
  policy_config first = window->policyPanel()->config(), second = first;
  first.q8_threshold = 0.55f;
  second.q8_threshold = 0.65f;
  whatIf->propose(first);
  ASSERT_TRUE(test::waitFor([&] { return whatIf->whatIfJobs()->busy(); }));  // its job has started
  whatIf->propose(second);
  ASSERT_TRUE(test::waitFor([&] { return whatIf->whatIf() && !whatIf->whatIfPending(); }, std::chrono::seconds(60)));
  EXPECT_EQ(whatIf->whatIf()->run.options.policy, second);
}

TEST(WhatIf, ApplyMakesTheWhatIfCurrentAndKeepsIt) {
  test::temp_dir dir;
  auto s = test::smallSession();
  MainWindow::Options o;
  o.persistSettings = false;
  o.pollIntervalMs = 10;
  o.runsDirectory = QString::fromStdString(dir.path().string());
  MainWindow window(test::makeTestRunner(s), s, 0.0, o);
  window.policyPanel()->slider(PolicyPanel::q4Threshold)->setValue(800);
  ASSERT_TRUE(test::waitFor([&] { return ghostShown(window); }, std::chrono::seconds(60)));
  const policy_config chosen = window.comparison()->whatIf()->whatIf()->run.options.policy;
  QSignalSpy started(&window, &MainWindow::runStarted);
  window.comparison()->comparePanel()->applyButton()->click();
  EXPECT_EQ(window.comparison()->whatIf()->current()->run.options.policy, chosen);
  EXPECT_EQ(window.pressurePlot()->ghostPoints(), 0u);  // no what-if now
  ASSERT_EQ(window.comparison()->runStore()->runs().size(), 1);
  ASSERT_TRUE(test::waitFor([&] { return started.count() == 1; }, std::chrono::seconds(30)));
  EXPECT_EQ(window.currentRun().options.policy, chosen);
}

}  // namespace
}  // namespace kvscope::ui

namespace kvscope::ui {
namespace {

// A whole run long enough to report (several quarter seconds) says how far it is: fractions of
// the load that only grow, in [0, 1), for the job that runs, before its result.
TEST(WhatIfProgress, ALongRunReportsItsShareDoneAndTimeLeft) {
  BackgroundRun jobs;
  QSignalSpy progress(&jobs, &BackgroundRun::progress);
  QSignalSpy finished(&jobs, &BackgroundRun::finished);
  run_description longRun = test::smallSession();
  longRun.load_spec = "gen:rate=40,prompt=fixed:256,output=fixed:64,count=2000000,seed=9";
  const quint64 job = jobs.start(longRun);
  // Until a report gives a time left (once 1 % is done: later on a loaded machine).
  ASSERT_TRUE(test::waitFor([&] { return progress.count() >= 2 && progress.back().at(2).toDouble() > 0; },
                            std::chrono::seconds(120)));
  jobs.cancel();  // the rest of the run is not needed
  double last = 0;
  for (const auto& args : progress) {
    EXPECT_EQ(args.at(0).value<quint64>(), job);
    const double fraction = args.at(1).toDouble();
    EXPECT_GE(fraction, 0);
    EXPECT_LT(fraction, 1);
    EXPECT_GE(fraction, last);
    last = fraction;
  }
  EXPECT_GT(progress.back().at(1).toDouble(), 0);
  EXPECT_EQ(finished.count(), 0);
}

}  // namespace
}  // namespace kvscope::ui
