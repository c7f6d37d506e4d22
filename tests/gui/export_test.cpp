// Exports and imports against a real runner: policy configs re-import equal (JSON and TOML,
// with provenance from the run), a bad file changes nothing and says why, plots and metrics are
// written, and a saved session imports and replays to the same metrics.
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QSlider>

#include <gtest/gtest.h>

#include <sstream>

#include "run/run_service.hpp"
#include "engine/engine.hpp"
#include "jobs/engine_bridge.hpp"
#include "window/exports.hpp"
#include "gui_test_support.hpp"
#include "io/metrics_csv.hpp"
#include "io/policy_file.hpp"
#include "panels/latency_panel.hpp"
#include "window/main_window.hpp"
#include "plots/memory_plot.hpp"
#include "panels/policy_panel.hpp"
#include "plots/pressure_plot.hpp"
#include "common/qcustomplot_include.hpp"
#include "temp_dir.hpp"

namespace kvscope::ui {
namespace {

std::vector<std::string> rows(const std::vector<step_metrics>& metrics) {
  std::vector<std::string> out;
  for (const auto& m : metrics) out.push_back(metrics_csv_row(m));
  return out;
}

class ExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    window = test::makeWindow(test::smallSession(), &feed);
    ASSERT_TRUE(test::stepAndShow(*window, *feed, 40));
    // An unusual config: every field away from its default.
    window->policyPanel()->slider(PolicyPanel::q8Threshold)->setValue(613);
    window->policyPanel()->slider(PolicyPanel::q4Threshold)->setValue(877);
    window->policyPanel()->slider(PolicyPanel::hysteresis)->setValue(31);
    window->policyPanel()->slider(PolicyPanel::ewmaAlpha)->setValue(450);
  }
  runner* feed = nullptr;
  std::unique_ptr<MainWindow> window;
  test::temp_dir dir;
};

TEST_F(ExportTest, ExportedConfigsReimportEqualWithProvenanceFromTheRun) {
  const policy_config config = window->policyPanel()->config();
  ASSERT_EQ(config.q8_threshold, 0.613f);
  for (const char* name : {"policy.json", "policy.toml"}) {
    const QString path = QString::fromStdString(dir.file(name));
    QString error;
    ASSERT_TRUE(window->exportPolicyConfig(path, &error)) << error.toStdString();
    const auto back = read_policy_config(path.toStdString());
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(*back, config) << name;
    // Importing it into a fresh panel gives the same config again.
    PolicyPanel panel;
    ASSERT_TRUE(panel.setConfig(*back));
    EXPECT_EQ(panel.config(), config);
    const std::string text = test::read_text(path.toStdString());
    EXPECT_NE(text.find("provenance"), std::string::npos) << text;
    EXPECT_NE(text.find(test::smallLoad), std::string::npos) << text;
    EXPECT_NE(text.find("tiny"), std::string::npos) << text;
    EXPECT_NE(text.find("level_transitions"), std::string::npos) << text;
    EXPECT_NE(text.find("mean_usage"), std::string::npos) << text;
  }
}

TEST_F(ExportTest, ImportedConfigGoesToPanelPlotAndEngine) {
  const QString path = QString::fromStdString(dir.file("in.toml"));
  const policy_config aggressive = *policy_preset("aggressive");
  ASSERT_TRUE(write_policy_config(path.toStdString(), aggressive));
  QString error;
  ASSERT_TRUE(window->importPolicyConfig(path, &error)) << error.toStdString();
  EXPECT_EQ(window->policyPanel()->config(), aggressive);
  EXPECT_EQ(window->pressurePlot()->policy(), aggressive);
  const auto s = feed->sync();
  EXPECT_EQ(test::reconfigures(s->command_log).back(), aggressive);
  EXPECT_EQ(s->policy, aggressive);
}

TEST_F(ExportTest, BadConfigChangesNothingAndNamesTheFile) {
  const std::string path = dir.file("bad.json");
  test::write_text(path, R"({"q8_threshold": 0.9, "q4_threshold": 0.5})");
  const policy_config before = window->policyPanel()->config();
  const std::size_t logged = feed->sync()->command_log.size();
  QString error;
  EXPECT_FALSE(window->importPolicyConfig(QString::fromStdString(path), &error));
  EXPECT_TRUE(error.contains(QStringLiteral("bad.json"))) << error.toStdString();
  EXPECT_TRUE(error.contains(QStringLiteral("q4_threshold must be >= q8_threshold"))) << error.toStdString();
  EXPECT_EQ(window->policyPanel()->config(), before);
  EXPECT_EQ(feed->sync()->command_log.size(), logged);
}

TEST_F(ExportTest, PlotsExportAsPngAndPdf) {
  for (QWidget* plot : {static_cast<QWidget*>(window->pressurePlot()), static_cast<QWidget*>(window->memoryPlot()),
                        static_cast<QWidget*>(window->latencyPanel())}) {
    const QString png = QString::fromStdString(dir.file("plot.png"));
    const QString pdf = QString::fromStdString(dir.file("plot.pdf"));
    QString error;
    ASSERT_TRUE(window->exportPlot(plot, png, &error)) << error.toStdString();
    ASSERT_TRUE(window->exportPlot(plot, pdf, &error)) << error.toStdString();
    EXPECT_FALSE(QImage(png).isNull());
    QFile f(pdf);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_TRUE(f.read(5) == "%PDF-");
  }
  QString error;
  EXPECT_FALSE(window->exportPlot(window->pressurePlot(), QString::fromStdString(dir.file("plot.gif")), &error));
  EXPECT_TRUE(error.contains(QStringLiteral(".png or .pdf")));
}

// A live plot runs without QCustomPlot's legend (the window shows a static one beside it);
// an exported file has no window around it, so it gets the legend back for the export only.
TEST(PlotExport, FilesCarryTheLegendTheLivePlotLeavesOut) {
  test::temp_dir dir;
  QCustomPlot plot;
  plot.resize(400, 240);
  QCPGraph* graph = plot.addGraph();
  graph->setName(QStringLiteral("EWMA"));
  graph->setData({0, 1, 2}, {0.2, 0.5, 0.4});
  plot.rescaleAxes();
  hideLegend(&plot);
  const QImage live = plot.toPixmap(0, 0, 2.0).toImage().convertToFormat(QImage::Format_RGB32);
  const QString png = QString::fromStdString(dir.file("legend.png"));
  QString error;
  ASSERT_TRUE(exportPlotFile(&plot, png, &error)) << error.toStdString();
  const QImage exported = QImage(png).convertToFormat(QImage::Format_RGB32);
  ASSERT_EQ(exported.size(), live.size());
  EXPECT_NE(exported, live);  // the legend row pushed the axis rect down
  EXPECT_FALSE(plot.legend->visible());
  EXPECT_EQ(plot.toPixmap(0, 0, 2.0).toImage().convertToFormat(QImage::Format_RGB32), live);
}

TEST_F(ExportTest, MetricsCsvHoldsEveryStepTheEngineRan) {
  const QString path = QString::fromStdString(dir.file("metrics.csv"));
  QString error;
  ASSERT_TRUE(window->exportMetrics(path, &error)) << error.toStdString();
  std::istringstream in(test::read_text(path.toStdString()));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 41u);
  EXPECT_EQ(lines.front(), metrics_csv_header());
  EXPECT_EQ(lines.back(), metrics_csv_row(feed->latest()->latest));
  EXPECT_FALSE(window->exportMetrics(QString::fromStdString(dir.file("no/such/dir/m.csv")), &error));
  EXPECT_TRUE(error.contains(QStringLiteral("m.csv"))) << error.toStdString();
}

// Save a tuned run as a session, import it: the new runner replays it to the saved step and
// pauses there, with the same metrics for every step and the same command log.
TEST_F(ExportTest, SessionSaveThenImportReplaysToTheSameMetrics) {
  ASSERT_TRUE(test::stepAndShow(*window, *feed, 35));
  window->policyPanel()->slider(PolicyPanel::q8Threshold)->setValue(500);
  ASSERT_TRUE(test::stepAndShow(*window, *feed, 25));
  const auto saved = feed->sync();
  ASSERT_EQ(saved->step, 100u);
  ASSERT_TRUE(test::waitFor([&] { return window->bridge()->current() == feed->latest(); }));
  const auto before = rows(window->bridge()->history().recent());
  ASSERT_EQ(before.size(), 100u);
  const QString path = QString::fromStdString(dir.file("run.kvscope.json"));
  QString error;
  ASSERT_TRUE(window->saveSession(path, &error)) << error.toStdString();

  // What kvscope-cli replay would run, headless.
  const auto s = read_session(path.toStdString());
  ASSERT_TRUE(s) << s.error();
  EXPECT_EQ(s->steps, 100u);
  EXPECT_EQ(s->commands.size(), saved->command_log.size());
  std::vector<std::string> headless;
  (void)run_to_end(*s, [&](const engine& e) { headless.push_back(metrics_csv_row(e.last_metrics())); });
  EXPECT_EQ(headless, before);

  // Imported into the window: a new runner replays it live.
  QSignalSpy started(window.get(), &MainWindow::runStarted);
  ASSERT_GT(window->importSession(path), 0u);
  ASSERT_TRUE(test::waitFor([&] { return started.count() == 1; }));
  ASSERT_NE(window->bridge()->feed(), feed);
  ASSERT_TRUE(test::waitFor([&] {
    const auto c = window->bridge()->current();
    return c && c->step == 100 && !c->playing;
  }));
  const auto replayed = window->bridge()->current();
  EXPECT_EQ(rows(window->bridge()->history().recent()), before);
  EXPECT_EQ(replayed->policy, saved->policy);
  ASSERT_EQ(replayed->command_log.size(), saved->command_log.size());
  for (std::size_t i = 0; i < saved->command_log.size(); ++i) {
    EXPECT_EQ(replayed->command_log[i].step, saved->command_log[i].step) << i;
  }
  EXPECT_EQ(window->policyPanel()->config(), saved->policy);
}

TEST_F(ExportTest, ABadSessionFileChangesNothing) {
  const std::string path = dir.file("broken.kvscope.json");
  test::write_text(path, R"({"kvscope_session": 1, "load": {"spec": "gen:rate=-1,count=3"}})");
  QSignalSpy failed(window.get(), &MainWindow::runFailed);
  window->importSession(QString::fromStdString(path));
  ASSERT_TRUE(test::waitFor([&] { return failed.count() == 1; }));
  EXPECT_TRUE(failed.front().front().toString().contains(QStringLiteral("rate"))) << failed.front().front().toString().toStdString();
  EXPECT_EQ(window->bridge()->feed(), feed);
}

}  // namespace
}  // namespace kvscope::ui

namespace kvscope::ui {
namespace {

// The example configs shipped in resources/examples load and match their presets.
TEST(ExampleConfigs, LoadAndMatchThePresets) {
  const std::string dir = KVSCOPE_RESOURCES_DIR "/examples/";
  const auto def = read_policy_config(dir + "policy-default.toml");
  ASSERT_TRUE(def) << def.error();
  EXPECT_EQ(*def, *policy_preset("default"));
  const auto aggressive = read_policy_config(dir + "policy-aggressive.json");
  ASSERT_TRUE(aggressive) << aggressive.error();
  EXPECT_EQ(*aggressive, *policy_preset("aggressive"));
}

}  // namespace
}  // namespace kvscope::ui
