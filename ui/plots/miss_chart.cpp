#include "plots/miss_chart.hpp"

#include <algorithm>
#include <numeric>

#include "common/qcustomplot_include.hpp"

namespace kvscope::ui {
namespace {

QString causeWords(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

}  // namespace

MissChart::MissChart(QWidget* parent) : QObject(parent) {
  plot_ = new QCustomPlot(parent);
  plot_->setObjectName(QStringLiteral("missPlot"));
  prepareLivePlot(plot_);
  QCPBars* below = nullptr;
  for (std::size_t c = 0; c < miss_cause_count; ++c) {
    auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
    bars->setName(causeWords(describe(static_cast<miss_cause>(c))));
    bars->setWidthType(QCPBars::wtPlotCoords);
    if (below) bars->moveAbove(below);  // one stack per window, causes in the enum's order
    below = bars_[c] = bars;
  }
  // Whole requests: ticks on integers only, however few misses a window has.
  auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
  ticker->setTickStep(1);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  plot_->yAxis->setTicker(ticker);
  message_ = new QCPItemText(plot_);
  message_->position->setType(QCPItemPosition::ptAxisRectRatio);
  message_->position->setCoords(0.5, 0.45);
  message_->setPadding(QMargins(6, 3, 6, 3));
  plot_->yAxis->setLabel(tr("missed requests"));
  plot_->xAxis->setTickLabels(false);  // the plot below names the time axis
  plot_->setMinimumHeight(110);
  connect(plot_, &QCustomPlot::afterLayout, this,
          [this] { fitAxesToSize(plot_, plot_->yAxis, tr("missed requests"), tr("missed")); });
  hideLegend(plot_);
  setSlo({});
}

void MissChart::setTheme(const Theme& t) {
  theme_ = &t;
  applyPlotTheme(plot_, t);
  for (std::size_t c = 0; c < miss_cause_count; ++c) {
    const QColor color = t.causeColor(static_cast<miss_cause>(c));
    bars_[c]->setBrush(color);
    bars_[c]->setPen(QPen(t.base, 1));  // a thin gap between stacked causes
  }
  message_->setColor(t.mutedText);
  updateLegend();
}

void MissChart::setSlo(const slo_spec& slo) {
  hasSlo_ = !slo.empty();
  updateMessage();
}

void MissChart::showSeries(const latency_series& s) {
  std::array<QVector<QCPBarsData>, miss_cause_count> data;
  tallest_ = 0;
  for (const latency_window& w : s.windows) {
    const double at = w.start_s + s.window_s / 2;
    for (std::size_t c = 0; c < miss_cause_count; ++c) {
      if (w.missed[c] > 0) data[c].push_back({at, static_cast<double>(w.missed[c])});
    }
    tallest_ = std::max(tallest_, static_cast<double>(w.missed_total()));
  }
  for (std::size_t c = 0; c < miss_cause_count; ++c) {
    bars_[c]->setWidth(s.window_s * 0.85);
    bars_[c]->data()->set(data[c], true);
  }
  if (s.missed != runMissed_) {
    runMissed_ = s.missed;
    updateLegend();
  }
  updateMessage();
}

void MissChart::updateLegend() {
  entries_.clear();
  const std::uint64_t total = std::accumulate(runMissed_.begin(), runMissed_.end(), std::uint64_t{0});
  for (std::size_t c = 0; c < miss_cause_count; ++c) {
    // Causes that explain no miss would only crowd the row (and an exported plot's legend).
    if (runMissed_[c] == 0) {
      bars_[c]->removeFromLegend();
      continue;
    }
    bars_[c]->addToLegend();
    const auto cause = static_cast<miss_cause>(c);
    const double share = 100.0 * static_cast<double>(runMissed_[c]) / static_cast<double>(total);
    ColorLegend::Entry e;
    e.color = theme_->causeColor(cause);
    e.text = tr("%1 %2 %").arg(causeWords(describe(cause))).arg(share, 0, 'f', 0);
    e.toolTip = tr("%1 of the %2 requests that missed the SLO so far (%3 in the run summary). Each missed "
                   "request counts under the one cause that cost it most time.")
                    .arg(runMissed_[c])
                    .arg(total)
                    .arg(causeWords(key_of(cause)));
    entries_.push_back(e);
  }
  Q_EMIT legendChanged();
}

void MissChart::updateMessage() {
  const bool none = std::all_of(runMissed_.begin(), runMissed_.end(), [](std::uint64_t n) { return n == 0; });
  message_->setText(!hasSlo_ ? tr("No SLO set: nothing can miss.\nStart a run with --slo (say ttft=0.5,tpot=0.05).")
                    : none   ? tr("No request has missed the SLO so far.")
                             : QString());
  message_->setVisible(!message_->text().isEmpty());
}

QString MissChart::message() const { return message_->visible() ? message_->text() : QString(); }

void MissChart::fitRanges(double end_s) {
  plot_->xAxis->setRange(0, std::max(end_s, 1.0));
  plot_->yAxis->setRange(0, tallest_ > 0 ? tallest_ * 1.15 : 1);
}

}  // namespace kvscope::ui
