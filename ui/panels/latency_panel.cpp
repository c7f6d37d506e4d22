#include "panels/latency_panel.hpp"

#include <QHBoxLayout>
#include <QElapsedTimer>
#include <QPushButton>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "plots/latency_charts.hpp"
#include "common/live_label.hpp"
#include "common/qcustomplot_include.hpp"
#include "panels/request_table.hpp"
#include "run/run_summary.hpp"

namespace kvscope::ui {
namespace {

QString msText(double seconds) {
  if (std::isnan(seconds)) return QStringLiteral("–");
  return seconds < 1 ? QObject::tr("%1 ms").arg(seconds * 1000, 0, 'f', seconds < 0.01 ? 2 : 1)
                     : QObject::tr("%1 s").arg(seconds, 0, 'f', 2);
}

// The requests of one whole run, or null without one.
std::shared_ptr<const latency_series_builder> builderOf(const OutcomePtr& outcome) {
  return outcome && outcome->error.isEmpty() ? outcome->latency : nullptr;
}

}  // namespace

LatencyPanel::LatencyPanel(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(4, 2, 4, 2);
  outer->setSpacing(2);
  charts_ = new LatencyCharts;
  outer->addWidget(charts_, 1);
  connect(charts_, &LatencyCharts::viewChanged, this, [this](LatencyCharts::View v) {
    whyButton_->setChecked(v == LatencyCharts::missView);
    updateSummary();
  });
  auto* row = new QHBoxLayout;
  // Whole, on a second line where the panel is narrow (1366 px wide screens): cut short, it lost
  // the goodput; the whole story is in its tooltip.
  summary_ = new LiveLabel(Qt::PlainText);
  summary_->setWordWrap(true);
  row->addWidget(summary_, 1);
  // Beside the summary rather than the legend: the causes' legend needs the whole width. One
  // checkable button, not two: the summary needs the room more.
  whyButton_ = new QToolButton;
  whyButton_->setObjectName(QStringLiteral("whyMissedButton"));
  whyButton_->setText(tr("why missed"));
  whyButton_->setToolTip(tr("Show the requests that missed the SLO, per window of completion times, stacked by the "
                            "cause that cost each one most time (docs/why-requests-miss.md), instead of TTFT and "
                            "TPOT; Requests… filters by cause"));
  whyButton_->setCheckable(true);
  connect(whyButton_, &QToolButton::toggled, this, [this](bool on) {
    charts_->setView(on ? LatencyCharts::missView : LatencyCharts::latencyView);
  });
  row->addWidget(whyButton_);
  requestsButton_ = new QPushButton(tr("Requests…"));
  requestsButton_->setObjectName(QStringLiteral("requestsButton"));
  requestsButton_->setToolTip(tr("Every request so far: its times, latencies, tokens and preemptions, "
                                 "sortable; or a CSV written by kvscope-cli simulate --requests"));
  connect(requestsButton_, &QPushButton::clicked, this, [this] { openRequestTable(); });
  row->addWidget(requestsButton_);
  outer->addLayout(row);
  // Grouping every request into windows is a few ms on a long run: a few times a second is
  // as fast as a window's percentiles change, and a panel behind another tab waits until shown.
  redrawTimer_ = new QTimer(this);
  redrawTimer_->setSingleShot(true);
  redrawTimer_->setInterval(250);
  connect(redrawTimer_, &QTimer::timeout, this, [this] {
    hiddenChanges_ = !isVisible();
    if (!hiddenChanges_) redraw();
  });
  updateSummary();
}

LatencyPanel::~LatencyPanel() = default;

void LatencyPanel::setTheme(const Theme& theme) { charts_->setTheme(theme); }

QString LatencyPanel::summaryText() const { return summary_->text(); }

void LatencyPanel::startOver(const slo_spec& slo) {
  builder_ = latency_series_builder(slo);
  taken_ = 0;
  series_ = {};
  charts_->setSlo(slo);
  dirty_ = true;
}

void LatencyPanel::setSnapshot(const SnapshotPtr& s) {
  if (!s) return;
  const std::string slo = s->summary ? s->summary->slo : std::string();
  if (!last_ || slo != sloText_ || s->generation != generation_ || s->requests_completed < taken_) {
    sloText_ = slo;
    generation_ = s->generation;
    startOver(sloOf(slo));
  }
  last_ = s;
  if (s->requests_completed > taken_) {
    for (const request_record& r : s->requests_since(taken_)) builder_.add(r);
    taken_ = s->requests_completed;
    dirty_ = true;
  }
  if (!redrawTimer_->isActive()) redrawTimer_->start();
}

void LatencyPanel::setGhosts(OutcomePtr whatIf, OutcomePtr current) {
  if (whatIf == ghostWhatIf_ && current == ghostCurrent_) return;
  ghostWhatIf_ = std::move(whatIf);
  // The current config's whole run only as a reference for a what-if.
  ghostCurrent_ = ghostWhatIf_ ? std::move(current) : nullptr;
  ghostBuilders_[LatencyCharts::whatIf] = builderOf(ghostWhatIf_);
  ghostBuilders_[LatencyCharts::currentRun] = builderOf(ghostCurrent_);
  dirty_ = true;
  if (!redrawTimer_->isActive()) redrawTimer_->start();
}

void LatencyPanel::redraw() {
  double end = last_ ? last_->sim_time_s : 0;
  for (const auto& ghost : ghostBuilders_) {
    if (ghost) end = std::max(end, ghost->last_finish_s());
  }
  // One window width for the live run and the ghosts, so their lines compare point by point.
  const double window = latency_window_for(end);
  if (dirty_ || window != series_.window_s) {
    QElapsedTimer cost;
    cost.start();
    series_ = builder_.build(window);
    charts_->showSeries(series_);
    for (const auto g : {LatencyCharts::whatIf, LatencyCharts::currentRun}) {
      const auto& b = ghostBuilders_[g];
      const latency_series ghost = b ? b->build(window) : latency_series{};
      charts_->showGhost(g, b ? &ghost : nullptr);
    }
    dirty_ = false;
    updateSummary();
    // A run of a million requests takes long to group: never more than 5 % of the GUI thread.
    redrawTimer_->setInterval(std::max(250, static_cast<int>(cost.elapsed()) * 20));
  }
  charts_->fitRanges(end);
  if (isVisible()) charts_->replot();
}

void LatencyPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (hiddenChanges_) {
    hiddenChanges_ = false;
    redraw();
  }
}

void LatencyPanel::updateSummary() {
  if (charts_->view() == LatencyCharts::missView && !sloText_.empty()) {
    updateMissSummary();
    return;
  }
  if (series_.finished == 0) {
    summary_->setText(tr("No request has finished yet."));
    summary_->setToolTip(tr("Latencies are grouped by when requests finish."));
    return;
  }
  const double seconds = last_ ? last_->sim_time_s : 0;
  const double goodput = seconds > 0 ? static_cast<double>(series_.good) / seconds : 0;
  const double met = 100.0 * static_cast<double>(series_.good) / static_cast<double>(series_.finished);
  const QString slo = sloText_.empty() ? tr("no --slo") : QString::fromStdString(sloText_);
  summary_->setText(tr("%1 done · p99 TTFT %2, TPOT %3 · goodput %4/s, %5 % met %6")
                        .arg(series_.finished)
                        .arg(msText(series_.ttft_s.p99), msText(series_.tpot_s.p99))
                        .arg(goodput, 0, 'f', 2)
                        .arg(met, 0, 'f', 0)
                        .arg(slo));
  summary_->setToolTip(
      tr("<b>The run so far</b>: %1 requests finished.<br>TTFT p50 %2, p99 %3; TPOT p50 %4, p99 %5 "
         "(exact, as the run summary computes them).<br>Goodput %6 requests/s: those meeting every SLO "
         "(%7), per simulated second; without an SLO every finished request counts.<br>The plots group "
         "requests by when they finished, in windows of %8 s.")
          .arg(series_.finished)
          .arg(msText(series_.ttft_s.p50), msText(series_.ttft_s.p99), msText(series_.tpot_s.p50),
               msText(series_.tpot_s.p99))
          .arg(goodput, 0, 'f', 2)
          .arg(slo.toHtmlEscaped())
          .arg(series_.window_s));
}

void LatencyPanel::updateMissSummary() {
  const std::uint64_t completed = series_.finished + series_.missed[static_cast<std::size_t>(miss_cause::rejected)];
  const std::uint64_t missed = series_.missed_total();
  const QString slo = QString::fromStdString(sloText_);
  if (missed == 0) {
    summary_->setText(tr("%1 completed · none missed %2").arg(completed).arg(slo));
    summary_->setToolTip(tr("No request has missed the SLO (%1) so far.").arg(slo.toHtmlEscaped()));
    return;
  }
  const auto most = static_cast<miss_cause>(std::max_element(series_.missed.begin(), series_.missed.end()) -
                                            series_.missed.begin());
  const auto share = [missed](std::uint64_t n) { return 100.0 * static_cast<double>(n) / static_cast<double>(missed); };
  const std::string_view why = describe(most);
  // The main cause before the SLO: on a narrow panel the end of the line is cut off.
  summary_->setText(tr("%1 of %2 missed: %3 % %4 · %5")
                        .arg(missed)
                        .arg(completed)
                        .arg(share(series_.missed[static_cast<std::size_t>(most)]), 0, 'f', 0)
                        .arg(QString::fromUtf8(why.data(), static_cast<qsizetype>(why.size())), slo));
  QString lines;
  for (std::size_t c = 0; c < miss_cause_count; ++c) {
    if (series_.missed[c] == 0) continue;
    const std::string_view words = describe(static_cast<miss_cause>(c));
    lines += tr("<br>%1 %: %2 (%3)")
                 .arg(share(series_.missed[c]), 0, 'f', 0)
                 .arg(QString::fromUtf8(words.data(), static_cast<qsizetype>(words.size())).toHtmlEscaped())
                 .arg(series_.missed[c]);
  }
  summary_->setToolTip(tr("<b>Why requests missed %1</b>, so far: %2 of the %3 completed (rejected ones count as "
                          "missed). Each counts under the one cause that cost it most time:%4<br>The plot stacks "
                          "them per window of %5 s of completion times; Requests… lists and filters them.")
                           .arg(slo.toHtmlEscaped())
                           .arg(missed)
                           .arg(completed)
                           .arg(lines)
                           .arg(series_.window_s));
}

void LatencyPanel::setHistory(const metrics_history* history) {
  history_ = history;
  reloadQueue();
}

void LatencyPanel::reloadQueue() {
  charts_->clearQueue();
  queuePoints_ = 0;
  if (history_) {
    history_->for_each_point([this](const step_metrics& m) {
      charts_->appendQueue(m);
      ++queuePoints_;
    });
  }
}

void LatencyPanel::appendMetrics(const MetricsPtr& metrics) {
  if (!metrics || metrics->empty() || !history_) return;
  for (const step_metrics& m : *metrics) charts_->appendQueue(m);
  queuePoints_ += metrics->size();
  if (graphsOutgrew(queuePoints_, *history_)) reloadQueue();
  if (!redrawTimer_->isActive()) redrawTimer_->start();
}

void LatencyPanel::clearHistory() {
  reloadQueue();
  startOver(sloOf(sloText_));
  last_.reset();
  if (!redrawTimer_->isActive()) redrawTimer_->start();
}

RequestTableDialog* LatencyPanel::openRequestTable() {
  if (!table_) table_ = new RequestTableDialog(this);
  table_->setSlo(sloText_);
  auto records = std::make_shared<const std::vector<request_record>>(
      last_ ? last_->requests_since(0) : std::vector<request_record>{});
  table_->setRecords(std::move(records), last_ ? tr("the live run at step %1 (t = %2 s)")
                                                     .arg(last_->step)
                                                     .arg(last_->sim_time_s, 0, 'f', 1)
                                               : tr("no run yet"));
  table_->show();
  table_->raise();
  return table_;
}

}  // namespace kvscope::ui
