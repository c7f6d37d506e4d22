// The latency panel: after a run, its whole-run percentiles are the run summary's, bit for
// bit; its windows hold every finished request; the SLO lines sit at the SLOs; the request
// table has a row per completed request, live or read from the CLI's --requests CSV; and a
// what-if draws its (and the current config's) latency as a ghost.
#include <QSortFilterProxyModel>
#include <QTableView>

#include <gtest/gtest.h>

#include <cmath>

#include "jobs/engine_bridge.hpp"
#include "window/comparison_controller.hpp"
#include "gui_test_support.hpp"
#include "io/session_file.hpp"
#include "plots/latency_charts.hpp"
#include "panels/latency_panel.hpp"
#include "window/main_window.hpp"
#include "panels/policy_panel.hpp"
#include "process.hpp"
#include "common/qcustomplot_include.hpp"
#include "panels/request_table.hpp"
#include "run/run_service.hpp"
#include "run/run_summary.hpp"
#include "temp_dir.hpp"
#include "window/whatif_controller.hpp"

namespace kvscope::ui {
namespace {

run_description sessionWithSlo() {
  run_description s = test::smallSession();
  s.options.slo = "ttft=0.5,tpot=0.05";
  return s;
}

TEST(Latency, WholeRunPercentilesAreTheRunSummarysAndEveryRequestIsDrawn) {
  runner* feed = nullptr;
  auto window = test::makeWindow(sessionWithSlo(), &feed);
  const SnapshotPtr end = test::playToEnd(*window, *feed);
  ASSERT_TRUE(end && end->summary);
  const LatencyPanel& panel = *window->latencyPanel();
  const outcome_summary& service = end->summary->service;
  ASSERT_GT(service.finished, 50u);
  EXPECT_EQ(panel.finishedRequests(), service.finished);
  const latency_series& s = panel.series();
  EXPECT_EQ(s.finished, service.finished);
  EXPECT_EQ(s.good, service.good);
  EXPECT_EQ(s.ttft_s.p99, service.latency.ttft_s.p99);
  EXPECT_EQ(s.ttft_s.p50, service.latency.ttft_s.p50);
  EXPECT_EQ(s.tpot_s.p99, service.latency.tpot_s.p99);
  // And the run service's whole run of the same description (the live run had no commands).
  const run_summary whole = run_to_end(sessionWithSlo()).summary;
  EXPECT_EQ(s.ttft_s.p99, whole.service.latency.ttft_s.p99);

  // One point per window on each line; the windows hold every finished request.
  const LatencyCharts& charts = *panel.charts();
  ASSERT_GT(s.windows.size(), 1u);
  EXPECT_EQ(static_cast<std::size_t>(charts.p50Graph(LatencyCharts::ttft)->dataCount()), s.windows.size());
  EXPECT_EQ(static_cast<std::size_t>(charts.goodputGraph()->dataCount()), s.windows.size());
  std::uint64_t inWindows = 0;
  double worst = 0;
  for (const latency_window& w : s.windows) {
    inWindows += w.finished;
    if (!std::isnan(w.ttft_s.p99)) worst = std::max(worst, w.ttft_s.max);
  }
  EXPECT_EQ(inWindows, service.finished);
  EXPECT_EQ(worst, service.latency.ttft_s.max);
  EXPECT_GT(charts.queuePoints(), 0u);
  // The SLO lines at the SLOs, in ms.
  EXPECT_DOUBLE_EQ(charts.sloLineMs(LatencyCharts::ttft), 500.0);
  EXPECT_DOUBLE_EQ(charts.sloLineMs(LatencyCharts::tpot), 50.0);
  // Their captions beside the plot, not over the data.
  EXPECT_EQ(charts.sloCaptions(), QStringList({QStringLiteral("TPOT SLO\n50 ms"), QStringLiteral("TTFT SLO\n500 ms")}));
  EXPECT_TRUE(panel.summaryText().contains(QStringLiteral("ttft=0.5,tpot=0.05")));
  EXPECT_TRUE(panel.summaryText().startsWith(QStringLiteral("%1 done").arg(service.finished)));
}

// The log axis is labelled between decades where it spans few (values near an SLO read off it),
// and the waiting count's axis only at whole numbers.
TEST(Latency, AxesAreLabelledBetweenDecadesAndTheQueueInWholes) {
  runner* feed = nullptr;
  auto window = test::makeWindow(sessionWithSlo(), &feed);
  test::playToEnd(*window, *feed);
  const LatencyCharts& charts = *window->latencyPanel()->charts();
  QCPAxis* latency = charts.latencyPlot()->yAxis;
  latency->setRange(100, 5000);  // 1.7 decades around the 500 ms SLO
  charts.latencyPlot()->replot();
  const QVector<double> ticks = latency->tickVector();
  EXPECT_TRUE(ticks.contains(200) && ticks.contains(500) && ticks.contains(2000)) << ticks.size();
  QCPAxis* waiting = charts.servicePlot()->yAxis2;
  waiting->setRange(0, 3.4);
  charts.servicePlot()->replot();
  ASSERT_FALSE(waiting->tickVector().isEmpty());
  for (double t : waiting->tickVector()) EXPECT_EQ(t, std::floor(t)) << t;
}

TEST(Latency, WithoutAnSloThereAreNoSloLines) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  test::playToEnd(*window, *feed);
  EXPECT_TRUE(std::isnan(window->latencyPanel()->charts()->sloLineMs(LatencyCharts::ttft)));
  EXPECT_TRUE(std::isnan(window->latencyPanel()->charts()->sloLineMs(LatencyCharts::tpot)));
  EXPECT_TRUE(window->latencyPanel()->charts()->sloCaptions().isEmpty());
}

TEST(Latency, RequestTableHasARowPerRequestLiveAndFromTheCliCsv) {
  runner* feed = nullptr;
  auto window = test::makeWindow(sessionWithSlo(), &feed);
  const SnapshotPtr end = test::playToEnd(*window, *feed);
  RequestTableDialog* table = window->latencyPanel()->openRequestTable();
  const auto completed = end->summary->service.finished + end->summary->service.rejected;
  ASSERT_EQ(static_cast<std::uint64_t>(table->model()->rowCount()), completed);
  EXPECT_EQ(completed, end->summary->requests_total);  // the load is over: every request is there

  // Sorted by TTFT (after request, outcome, missed because, arrival), numbers sort as numbers:
  // the slowest comes last.
  constexpr int ttft_column = 4;
  ASSERT_EQ(table->model()->headerData(ttft_column, Qt::Horizontal, Qt::DisplayRole).toString(), QStringLiteral("TTFT (ms)"));
  table->view()->sortByColumn(ttft_column, Qt::AscendingOrder);
  const QAbstractItemModel* shown = table->view()->model();
  const double last = shown->index(shown->rowCount() - 1, ttft_column).data(RequestTableModel::sortRole).toDouble();
  EXPECT_EQ(last, end->summary->service.latency.ttft_s.max);

  // After 'reason', one column per latency part; a finished request's TTFT parts add up to its TTFT.
  constexpr int first_part = RequestTableModel::firstPartColumn;
  ASSERT_EQ(table->model()->columnCount(), first_part + static_cast<int>(latency_part_columns.size()));
  EXPECT_EQ(table->model()->headerData(first_part + 1, Qt::Horizontal, Qt::DisplayRole).toString(),
            QStringLiteral("wait kv memory (ms)"));
  for (int row = 0; row < table->model()->rowCount(); ++row) {
    const double ttft = table->model()->index(row, ttft_column).data(RequestTableModel::sortRole).toDouble();
    if (ttft < 0) continue;  // rejected: no TTFT
    double parts = 0;
    for (int c = 0; c < 8; ++c) parts += table->model()->index(row, first_part + c).data(RequestTableModel::sortRole).toDouble();
    EXPECT_NEAR(parts, ttft, 1e-9) << "row " << row;
  }

  // The CLI's --requests CSV for the same run reads into the same number of rows.
  test::temp_dir dir;
  ASSERT_TRUE(write_session(dir.file("run.kvscope.json"), sessionWithSlo()));
  const auto cli = test::run_process({test::cli_path(), "replay", "--session", dir.file("run.kvscope.json"),
                                      "--requests", dir.file("requests.csv"), "--quiet"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  QString error;
  ASSERT_TRUE(table->loadCsv(QString::fromStdString(dir.file("requests.csv")), &error)) << error.toStdString();
  EXPECT_EQ(static_cast<std::uint64_t>(table->model()->rowCount()), completed);
  EXPECT_FALSE(table->loadCsv(QString::fromStdString(dir.file("missing.csv")), &error));
  EXPECT_TRUE(error.contains(QStringLiteral("missing.csv")));
}

TEST(Latency, AWhatIfIsDrawnAsAGhostWithTheCurrentRun) {
  runner* feed = nullptr;
  auto window = test::makeWindow(sessionWithSlo(), &feed);
  ASSERT_TRUE(test::stepAndShow(*window, *feed, 20));
  window->policyPanel()->slider(PolicyPanel::q8Threshold)->setValue(600);
  const LatencyCharts& charts = *window->latencyPanel()->charts();
  ASSERT_TRUE(test::waitFor([&] {
    window->latencyPanel()->redraw();
    return window->comparison()->whatIf()->whatIf() && window->comparison()->whatIf()->current() &&
           charts.ghostGraph(LatencyCharts::whatIf, LatencyCharts::ttft)->dataCount() > 0 &&
           charts.ghostGraph(LatencyCharts::currentRun, LatencyCharts::ttft)->dataCount() > 0;
  }, std::chrono::seconds(60)));
  EXPECT_TRUE(charts.ghostGraph(LatencyCharts::whatIf, LatencyCharts::tpot)->visible());
  // The ghost keeps four numbers a request, not the records, and they give the what-if's
  // summary bit for bit, its SLO included.
  const OutcomePtr whatIf = window->comparison()->whatIf()->whatIf();
  ASSERT_TRUE(whatIf->latency);
  const outcome_summary& service = whatIf->summary.service;
  const latency_series whole = whatIf->latency->build(1.0);
  ASSERT_GT(service.finished, 50u);
  EXPECT_EQ(whole.finished, service.finished);
  EXPECT_EQ(whole.good, service.good);
  EXPECT_LT(whole.good, whole.finished) << "the SLO should fail some requests";
  EXPECT_EQ(whole.ttft_s.p99, service.latency.ttft_s.p99);
  EXPECT_EQ(whole.tpot_s.p50, service.latency.tpot_s.p50);
  // Dropping the what-if removes both ghosts.
  window->comparison()->discardWhatIf();
  window->latencyPanel()->redraw();
  EXPECT_FALSE(charts.ghostGraph(LatencyCharts::whatIf, LatencyCharts::ttft)->visible());
  EXPECT_FALSE(charts.ghostGraph(LatencyCharts::currentRun, LatencyCharts::ttft)->visible());
}

}  // namespace
}  // namespace kvscope::ui
