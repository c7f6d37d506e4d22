// The sweep view: a sweep CSV of the CLI drawn one point per measured row with core's Pareto
// front highlighted, hovering a point shows its config, clicking it makes exactly that config
// the what-if, a bad file is refused naming its line, and a sweep run here writes the CLI's bytes.
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QToolTip>

#include <gtest/gtest.h>

#include <cmath>

#include "gui_test_support.hpp"
#include "window/comparison_controller.hpp"
#include "io/session_file.hpp"
#include "window/main_window.hpp"
#include "process.hpp"
#include "common/qcustomplot_include.hpp"
#include "sweep/config_apply.hpp"
#include "sweep/objective.hpp"
#include "sweep/pareto.hpp"
#include "sweep/sweep_data.hpp"
#include "jobs/sweep_job.hpp"
#include "panels/sweep_panel.hpp"
#include "plots/sweep_scatter.hpp"
#include "temp_dir.hpp"
#include "window/whatif_controller.hpp"

namespace kvscope::ui {
namespace {

const std::string sweepCsv = std::string(KVSCOPE_TEST_DATA_DIR) + "/sweep_small.csv";

// A shown window with the checked-in sweep open (the sweep dock raised, the plot laid out).
std::unique_ptr<MainWindow> windowWithSweep() {
  auto window = test::makeWindow(test::smallSession());
  window->resize(1366, 768);
  window->show();
  EXPECT_TRUE(QTest::qWaitForWindowExposed(window.get()));
  QString error;
  EXPECT_TRUE(window->openSweep(QString::fromStdString(sweepCsv), &error)) << error.toStdString();
  QTest::qWait(20);
  window->comparison()->sweepPanel()->scatter()->plot()->replot();
  return window;
}

TEST(SweepView, OnePointPerMeasuredRowAndCoresParetoFrontHighlighted) {
  auto window = windowWithSweep();
  const SweepPanel* panel = window->comparison()->sweepPanel();
  EXPECT_EQ(panel->xBox()->currentText(), QStringLiteral("goodput_rps"));
  EXPECT_EQ(panel->yBox()->currentText(), QStringLiteral("attention_error_exposure"));

  const auto data = read_sweep_data(sweepCsv);
  ASSERT_TRUE(data) << data.error();
  ASSERT_EQ(data->rows.size(), 16u);
  const std::size_t x = *data->metric("goodput_rps"), y = *data->metric("attention_error_exposure");
  std::vector<std::vector<double>> points;
  std::vector<std::size_t> measured;
  for (std::size_t r = 0; r < data->rows.size(); ++r) {
    points.push_back({data->rows[r].metrics[x], data->rows[r].metrics[y]});
    if (!std::isnan(points.back()[0]) && !std::isnan(points.back()[1])) measured.push_back(r);
  }
  EXPECT_EQ(measured.size(), 14u);  // two configs could not run (--skip-invalid): no point
  const SweepScatter* scatter = panel->scatter();
  EXPECT_EQ(scatter->plottedRows(), measured);
  EXPECT_EQ(scatter->plot()->graph(0)->dataCount(), 14);

  const auto front = pareto_front({{"goodput_rps", direction::maximize}, {"attention_error_exposure", direction::minimize}},
                                  points);
  ASSERT_GT(front.size(), 1u);
  ASSERT_LT(front.size(), measured.size());  // a front that is every point would prove little
  EXPECT_TRUE(scatter->hasFront());
  EXPECT_EQ(scatter->frontRows(), front);
  EXPECT_EQ(scatter->plot()->graph(2)->dataCount(), static_cast<int>(front.size()));

  // The rows without a point are explained: the two refused configs did not run.
  const auto* status = panel->findChild<QLabel*>(QStringLiteral("sweepStatus"));
  ASSERT_NE(status, nullptr);
  EXPECT_TRUE(status->text().contains(QStringLiteral("2 not run (refused as a whole"))) << status->text().toStdString();
  EXPECT_FALSE(status->text().contains(QStringLiteral("without a value"))) << status->text().toStdString();
  // An axis these accounting-payload runs never measure: the other 14 have no value on it.
  window->comparison()->sweepPanel()->yBox()->setCurrentText(QStringLiteral("quality.q4.attention_rel_l2"));
  EXPECT_TRUE(status->text().contains(QStringLiteral("14 without a value on these axes"))) << status->text().toStdString();
  window->comparison()->sweepPanel()->yBox()->setCurrentText(QStringLiteral("attention_error_exposure"));

  // Another pair of axes: the front follows core's for those two.
  window->comparison()->sweepPanel()->yBox()->setCurrentText(QStringLiteral("latency.ttft_s.p99"));
  const std::size_t t = *data->metric("latency.ttft_s.p99");
  for (std::size_t r = 0; r < points.size(); ++r) points[r][1] = data->rows[r].metrics[t];
  EXPECT_EQ(scatter->frontRows(),
            pareto_front({{"goodput_rps", direction::maximize}, {"latency.ttft_s.p99", direction::minimize}}, points));
}

TEST(SweepView, HoverShowsTheConfigAndTheTwoValues) {
  auto window = windowWithSweep();
  const SweepScatter* scatter = window->comparison()->sweepPanel()->scatter();
  const std::size_t row = scatter->frontRows().front();
  const auto& r = window->comparison()->sweepPanel()->sweep()->rows[row];
  const QString text = scatter->tooltipText(row);
  for (const auto& s : r.config) {
    EXPECT_TRUE(text.contains(QString::fromStdString(s.name + " = " + s.value))) << text.toStdString();
  }
  EXPECT_TRUE(text.contains(QStringLiteral("goodput_rps"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("on the Pareto front"))) << text.toStdString();
  const QPoint at = scatter->pixelOf(row).toPoint();
  ASSERT_EQ(scatter->rowAt(at), row);
  QTest::mouseMove(scatter->plot(), at);
  ASSERT_TRUE(test::waitFor([&] { return QToolTip::isVisible(); }, std::chrono::seconds(5)));
  EXPECT_EQ(QToolTip::text(), text);
}

TEST(SweepView, ClickingAPointMakesExactlyItsConfigTheWhatIf) {
  auto window = windowWithSweep();
  window->comparison()->whatIf()->setDebounceMs(0);
  SweepScatter* scatter = window->comparison()->sweepPanel()->scatter();
  const std::size_t row = scatter->frontRows().back();
  const sweep_config config = window->comparison()->sweepPanel()->sweep()->rows[row].config;
  ASSERT_EQ(config.size(), 3u);
  QTest::mouseClick(scatter->plot(), Qt::LeftButton, {}, scatter->pixelOf(row).toPoint());
  ASSERT_TRUE(test::waitFor([&] { return window->comparison()->whatIf()->whatIf() != nullptr; }, std::chrono::seconds(60)));
  const run_description& ran = window->comparison()->whatIf()->whatIf()->run;
  const run_description base = wholeRun(window->currentRun());
  EXPECT_EQ(session_to_json(ran), session_to_json(wholeRun(config_run(base, config))));
  EXPECT_NE(session_to_json(ran), session_to_json(base));
  EXPECT_EQ(ran.options.policy.q8_threshold, std::stof(*find_setting(config, "q8_threshold")));
  EXPECT_EQ(ran.options.policy.q4_threshold, std::stof(*find_setting(config, "q4_threshold")));
  EXPECT_EQ(ran.options.policy.ewma_alpha, std::stof(*find_setting(config, "ewma_alpha")));
  EXPECT_EQ(ran.load_spec, base.load_spec);
}

TEST(SweepView, ABadFileIsRefusedNamingItsLineAndTheViewKeepsWhatItShowed) {
  auto window = windowWithSweep();
  test::temp_dir dir;
  std::string text = test::read_text(sweepCsv);
  const auto third = text.find('\n', text.find('\n', text.find('\n') + 1) + 1);  // end of line 3
  text.insert(third, "x");  // line 3's last metric cell is no number now
  test::write_text(dir.file("bad.csv"), text);
  QString error;
  EXPECT_FALSE(window->openSweep(QString::fromStdString(dir.file("bad.csv")), &error));
  EXPECT_TRUE(error.contains(QStringLiteral("bad.csv:3: column '"))) << error.toStdString();
  EXPECT_EQ(window->comparison()->sweepPanel()->scatter()->plottedRows().size(), 14u);
  EXPECT_FALSE(window->openSweep(QString::fromStdString(dir.file("missing.csv")), &error));
  EXPECT_TRUE(error.contains(QStringLiteral("missing.csv"))) << error.toStdString();
}

TEST(SweepView, ABadGridIsShownInlineAndNothingRuns) {
  auto window = test::makeWindow(test::smallSession());
  SweepPanel* panel = window->comparison()->sweepPanel();
  panel->gridEdit()->setText(QStringLiteral("q8_threshold=0.5:0.9:0"));
  QString error;
  EXPECT_FALSE(panel->startSweep(&error));
  EXPECT_TRUE(error.contains(QStringLiteral("q8_threshold"))) << error.toStdString();
  EXPECT_EQ(panel->messageLabel()->text(), error);
  EXPECT_FALSE(panel->messageLabel()->isHidden());
  EXPECT_FALSE(panel->job()->busy());
  panel->gridEdit()->setText(QStringLiteral("no_such_option=1"));
  EXPECT_FALSE(panel->startSweep(&error));
  EXPECT_TRUE(error.contains(QStringLiteral("no_such_option"))) << error.toStdString();
}

TEST(SweepView, ASweepRunHereWritesTheClisBytes) {
  auto window = test::makeWindow(test::smallSession());
  SweepPanel* panel = window->comparison()->sweepPanel();
  const QString grid = QStringLiteral("q8_threshold=0.5,0.7 q4_threshold=0.6,0.9 ewma_alpha=0.1,0.4");
  // A sweep cancelled, or left for a newer one, delivers nothing.
  panel->gridEdit()->setText(QStringLiteral("q8_threshold=0.2,0.4"));
  QString error;
  ASSERT_TRUE(panel->startSweep(&error)) << error.toStdString();
  EXPECT_FALSE(panel->runButton()->isEnabled());
  QTest::mouseClick(panel->cancelButton(), Qt::LeftButton);
  EXPECT_FALSE(panel->job()->busy());
  EXPECT_TRUE(panel->runButton()->isEnabled());
  EXPECT_TRUE(panel->progressBar()->isHidden());
  ASSERT_TRUE(panel->startSweep(&error)) << error.toStdString();
  panel->gridEdit()->setText(grid);
  panel->jobsBox()->setValue(2);
  QSignalSpy finished(panel, &SweepPanel::sweepFinished);
  ASSERT_TRUE(panel->startSweep(&error)) << error.toStdString();
  EXPECT_FALSE(panel->progressBar()->isHidden());
  ASSERT_TRUE(test::waitFor([&] { return finished.count() > 0; }, std::chrono::seconds(120)));
  EXPECT_EQ(finished.count(), 1);
  EXPECT_EQ(finished.front().front().toString(), QString());
  EXPECT_EQ(panel->progressBar()->value(), 8);
  EXPECT_EQ(panel->sweep()->rows.size(), 8u);

  test::temp_dir dir;
  ASSERT_TRUE(panel->saveCsv(QString::fromStdString(dir.file("gui.csv")), &error)) << error.toStdString();
  const auto cli = test::run_process({test::cli_path(), "sweep", "--load", test::smallLoad, "--model", "tiny",
                                      "--budget", "4MiB", "--payload", "accounting", "--quality-every", "10",
                                      "--grid", grid.toStdString(), "--skip-invalid", "--jobs", "1", "--quiet",
                                      "--out", dir.file("cli.csv")});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  const std::string bytes = test::read_text(dir.file("gui.csv"));
  EXPECT_FALSE(bytes.empty());
  EXPECT_EQ(bytes, test::read_text(dir.file("cli.csv")));
  EXPECT_EQ(bytes, panel->sweepCsv().toStdString());
}

}  // namespace
}  // namespace kvscope::ui
