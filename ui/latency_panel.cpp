#include "latency_panel.hpp"

#include <QHBoxLayout>
#include <QElapsedTimer>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "latency_charts.hpp"
#include "live_label.hpp"
#include "qcustomplot_include.hpp"
#include "request_table.hpp"
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
  auto* row = new QHBoxLayout;
  // One line (the plots need the height), the whole story in its tooltip.
  summary_ = new LiveLabel(Qt::PlainText);
  summary_->setElidable(true);
  row->addWidget(summary_, 1);
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
  if (series_.finished == 0) {
    summary_->setText(tr("No request has finished yet."));
    summary_->setToolTip(tr("Latencies are grouped by when requests finish."));
    return;
  }
  const double seconds = last_ ? last_->sim_time_s : 0;
  const double goodput = seconds > 0 ? static_cast<double>(series_.good) / seconds : 0;
  const double met = 100.0 * static_cast<double>(series_.good) / static_cast<double>(series_.finished);
  const QString slo = sloText_.empty() ? tr("no --slo") : QString::fromStdString(sloText_);
  summary_->setText(tr("%1 done · TTFT p99 %2 · TPOT p99 %3 · goodput %4/s (%5 % met %6)")
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
