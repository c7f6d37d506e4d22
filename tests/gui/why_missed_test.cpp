// Why requests missed, in the GUI: the request table's "missed because" column is core's
// dominant_cause for each row and adds up to the run summary's tally, its filter shows exactly
// the rows of the kind chosen, and the latency panel's "why missed" bars per window are the
// misses completing in that window; without an SLO both say there is nothing to miss.
#include <QComboBox>
#include <QToolButton>

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "jobs/engine_bridge.hpp"
#include "gui_test_support.hpp"
#include "plots/latency_charts.hpp"
#include "panels/latency_panel.hpp"
#include "window/main_window.hpp"
#include "plots/miss_chart.hpp"
#include "common/qcustomplot_include.hpp"
#include "panels/request_table.hpp"
#include "run/run_summary.hpp"

namespace kvscope::ui {
namespace {

// In 16 MiB under these limits the small load misses for three causes (KV memory, others'
// prefills, prefill chunks in decode steps) and a few requests meet them: every kind of row.
const slo_spec whyMissedSlo{0.2, 0.02, std::nullopt};

run_description whyMissedSession(bool withSlo) {
  run_description s = test::smallSession();
  s.options.budget_bytes = 16ull << 20;
  if (withSlo) s.options.slo = "ttft=0.2,tpot=0.02";
  return s;
}

// The cause of a record's miss worked out here from core's primitives (meets_slo,
// dominant_cause), not through the table's own helper; nullopt when it met the SLO.
std::optional<miss_cause> expectedCause(const request_record& r) {
  if (!r.finished()) return miss_cause::rejected;
  if (meets_slo(whyMissedSlo, r.ttft_s(), r.tpot_s(), r.e2e_s())) return std::nullopt;
  return dominant_cause(whyMissedSlo, r.ttft_s(), r.tpot_s(), r.e2e_s(), r.output_tokens, r.parts,
                        {r.alone_ttft_s, r.alone_tpot_s});
}

QString causeText(miss_cause c) {
  const std::string_view words = describe(c);
  return QString::fromUtf8(words.data(), static_cast<qsizetype>(words.size()));
}

TEST(WhyMissed, TheCauseColumnIsCoresDominantCauseAndAddsUpToTheTally) {
  runner* feed = nullptr;
  auto window = test::makeWindow(whyMissedSession(true), &feed);
  const SnapshotPtr end = test::playToEnd(*window, *feed);
  ASSERT_TRUE(end && end->summary);
  RequestTableDialog* table = window->latencyPanel()->openRequestTable();
  const RequestTableModel& model = *table->model();
  ASSERT_GT(model.rowCount(), 50);
  std::array<std::uint64_t, miss_cause_count> byCause{};
  for (int row = 0; row < model.rowCount(); ++row) {
    const request_record& r = (*model.records())[static_cast<std::size_t>(row)];
    const auto cause = expectedCause(r);
    const QString shown = model.index(row, RequestTableModel::missedColumn).data().toString();
    EXPECT_EQ(shown, cause ? causeText(*cause) : QString()) << "request " << r.request_id;
    if (cause) ++byCause[static_cast<std::size_t>(*cause)];
  }
  // The engine's own tally of the same run, cause by cause.
  const slo_miss_tally& tally = end->summary->service.misses;
  EXPECT_EQ(byCause, tally.requests);
  EXPECT_GT(tally.missed, 0u) << "the SLO should fail some requests";
  EXPECT_LT(tally.missed, static_cast<std::uint64_t>(model.rowCount())) << "and some should meet it";
  EXPECT_EQ(model.headerData(RequestTableModel::missedColumn, Qt::Horizontal, Qt::DisplayRole).toString(),
            QStringLiteral("missed because"));

  // The column sorts as text: requests that met the SLO (empty) first, then by cause.
  table->view()->sortByColumn(RequestTableModel::missedColumn, Qt::AscendingOrder);
  const QAbstractItemModel* sorted = table->view()->model();
  for (int row = 1; row < sorted->rowCount(); ++row) {
    EXPECT_LE(sorted->index(row - 1, RequestTableModel::missedColumn).data().toString(),
              sorted->index(row, RequestTableModel::missedColumn).data().toString());
  }
}

TEST(WhyMissed, TheFilterShowsExactlyTheRowsOfTheKindChosen) {
  runner* feed = nullptr;
  auto window = test::makeWindow(whyMissedSession(true), &feed);
  test::playToEnd(*window, *feed);
  RequestTableDialog* table = window->latencyPanel()->openRequestTable();
  const RequestTableModel& model = *table->model();
  QComboBox* box = table->filterBox();
  ASSERT_TRUE(box->isEnabled());
  ASSERT_EQ(box->count(), 3 + static_cast<int>(miss_cause_count));
  // Which records each choice should show, from core directly.
  const auto wanted = [&](int shown, const request_record& r) {
    const auto cause = expectedCause(r);
    switch (shown) {
      case RequestFilterModel::all: return true;
      case RequestFilterModel::met: return !cause;
      case RequestFilterModel::missed: return cause.has_value();
      default: return cause && static_cast<int>(*cause) == shown;
    }
  };
  int causesSeen = 0;
  for (int i = 0; i < box->count(); ++i) {
    box->setCurrentIndex(i);
    const int shown = box->itemData(i).toInt();
    std::map<std::uint64_t, int> expected;  // request id -> rows
    for (const request_record& r : *model.records()) {
      if (wanted(shown, r)) ++expected[r.request_id];
    }
    std::map<std::uint64_t, int> got;
    const QAbstractItemModel* view = table->view()->model();
    for (int row = 0; row < view->rowCount(); ++row) {
      ++got[static_cast<std::uint64_t>(view->index(row, 0).data(RequestTableModel::sortRole).toDouble())];
    }
    EXPECT_EQ(got, expected) << box->itemText(i).toStdString();
    EXPECT_TRUE(box->itemText(i).endsWith(QStringLiteral("(%1)").arg(expected.size()))) << box->itemText(i).toStdString();
    causesSeen += shown >= 0 && !expected.empty();
  }
  EXPECT_GE(causesSeen, 2) << "a filter by cause is only tested against more than one cause";
  // The choice is kept when the table is filled again.
  box->setCurrentIndex(box->findData(RequestFilterModel::missed));
  window->latencyPanel()->openRequestTable();
  EXPECT_EQ(table->filter()->shown(), RequestFilterModel::missed);
}

// Missed requests per window, summed over the stacked bars at the window's centre.
std::map<double, double> barTotals(const MissChart& chart) {
  std::map<double, double> total;
  for (std::size_t c = 0; c < miss_cause_count; ++c) {
    const auto data = chart.bars(static_cast<miss_cause>(c))->data();
    for (auto it = data->constBegin(); it != data->constEnd(); ++it) total[it->key] += it->value;
  }
  return total;
}

TEST(WhyMissed, TheChartsWindowTotalsAreTheMissesCompletingInThem) {
  runner* feed = nullptr;
  auto window = test::makeWindow(whyMissedSession(true), &feed);
  const SnapshotPtr end = test::playToEnd(*window, *feed);
  LatencyPanel& panel = *window->latencyPanel();
  LatencyCharts& charts = *panel.charts();
  panel.whyMissedButton()->click();
  ASSERT_EQ(charts.view(), LatencyCharts::missView);
  EXPECT_TRUE(charts.missChart()->plot()->isVisibleTo(&charts));
  EXPECT_FALSE(charts.latencyPlot()->isVisibleTo(&charts));
  panel.redraw();

  const double width = panel.series().window_s;
  ASSERT_GT(width, 0);
  std::map<double, double> expected;  // window centre -> misses completing in it
  std::uint64_t missed = 0;
  for (const request_record& r : end->requests_since(0)) {
    if (!expectedCause(r)) continue;
    const double start = std::floor(r.finish_s / width) * width;
    expected[start + width / 2] += 1;
    ++missed;
  }
  const MissChart& chart = *charts.missChart();
  const auto drawn = barTotals(chart);
  ASSERT_EQ(drawn.size(), expected.size());
  for (auto d = drawn.cbegin(), e = expected.cbegin(); d != drawn.cend(); ++d, ++e) {
    EXPECT_NEAR(d->first, e->first, 1e-9 * width);
    EXPECT_EQ(d->second, e->second) << "window at " << e->first;
  }
  EXPECT_EQ(missed, end->summary->service.misses.missed);
  // Each cause's bars hold that cause's misses: the tally's, over the run.
  for (std::size_t c = 0; c < miss_cause_count; ++c) {
    double sum = 0;
    const auto data = chart.bars(static_cast<miss_cause>(c))->data();
    for (auto it = data->constBegin(); it != data->constEnd(); ++it) sum += it->value;
    EXPECT_EQ(sum, static_cast<double>(end->summary->service.misses.requests[c])) << key_of(static_cast<miss_cause>(c));
  }
  EXPECT_TRUE(chart.message().isEmpty());
  // A legend entry per cause seen, in words; the line under the plot counts the misses.
  std::size_t seen = 0;
  for (const std::uint64_t n : end->summary->service.misses.requests) seen += n > 0;
  EXPECT_EQ(static_cast<std::size_t>(chart.legendEntries().size()), seen);
  EXPECT_TRUE(panel.summaryText().startsWith(QStringLiteral("%1 of ").arg(missed))) << panel.summaryText().toStdString();
  // Back to latency: the usual line.
  panel.whyMissedButton()->click();
  EXPECT_TRUE(charts.latencyPlot()->isVisibleTo(&charts));
  EXPECT_TRUE(panel.summaryText().contains(QStringLiteral(" done · ")));
}

TEST(WhyMissed, WithoutAnSloNothingMissesAndBothSaySo) {
  runner* feed = nullptr;
  auto window = test::makeWindow(whyMissedSession(false), &feed);
  test::playToEnd(*window, *feed);
  LatencyCharts& charts = *window->latencyPanel()->charts();
  charts.setView(LatencyCharts::missView);
  EXPECT_TRUE(window->latencyPanel()->whyMissedButton()->isChecked());
  EXPECT_TRUE(charts.missChart()->message().startsWith(QStringLiteral("No SLO set")));
  EXPECT_TRUE(barTotals(*charts.missChart()).empty());
  RequestTableDialog* table = window->latencyPanel()->openRequestTable();
  EXPECT_FALSE(table->filterBox()->isEnabled());
  EXPECT_EQ(table->view()->model()->rowCount(), table->model()->rowCount());
  for (int row = 0; row < table->model()->rowCount(); ++row) {
    EXPECT_TRUE(table->model()->index(row, RequestTableModel::missedColumn).data().toString().isEmpty());
  }
}

}  // namespace
}  // namespace kvscope::ui
