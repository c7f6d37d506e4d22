#include "plots/latency_charts.hpp"

#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/level_legend.hpp"
#include "plots/miss_chart.hpp"
#include "plots/plot_items.hpp"
#include "common/qcustomplot_include.hpp"

namespace kvscope::ui {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// Seconds to ms; NaN (nothing measured) and values a log axis cannot show leave a gap.
double ms(double seconds) { return seconds > 0 ? seconds * 1000 : nan; }

QVector<QCPGraphData> points(const latency_series& s, double (*value)(const latency_window&)) {
  QVector<QCPGraphData> out;
  out.reserve(static_cast<qsizetype>(s.windows.size()));
  for (const latency_window& w : s.windows) out.push_back({w.start_s + s.window_s / 2, value(w)});
  return out;
}

// A log axis labelled between decades too (1, 2, 5 per decade over two decades or less; 1 and 3
// over four): a 2 s SLO and the latencies around it read off the axis, not only 1 s and 10 s.
class SteppedLogTicker : public QCPAxisTickerLog {
 protected:
  int getSubTickCount(double) override { return 0; }
  QVector<double> createTickVector(double, const QCPRange& range) override {
    if (!(range.lower > 0) || !(range.upper > range.lower) || !std::isfinite(range.upper)) return {};
    const double decades = std::log10(range.upper / range.lower);
    const std::vector<double> steps = decades <= 2 ? std::vector<double>{1, 2, 5}
                                     : decades <= 4 ? std::vector<double>{1, 3}
                                                    : std::vector<double>{1};
    QVector<double> ticks;
    for (double decade = std::pow(10.0, std::floor(std::log10(range.lower))); decade <= range.upper;
         decade *= 10) {
      for (double step : steps) {
        if (decade * step >= range.lower && decade * step <= range.upper) ticks.push_back(decade * step);
      }
    }
    return ticks;
  }
};

// A value axis fitted to what its graphs hold (and `extra`), with some room above.
void fitValueAxis(QCPAxis* axis, const QList<QCPGraph*>& graphs, std::initializer_list<double> extra, bool log) {
  double lower = std::numeric_limits<double>::infinity(), upper = 0;
  for (QCPGraph* g : graphs) {
    if (!g->visible()) continue;
    bool found = false;
    const QCPRange r = g->getValueRange(found, log ? QCP::sdPositive : QCP::sdBoth);
    if (!found) continue;
    lower = std::min(lower, r.lower);
    upper = std::max(upper, r.upper);
  }
  for (const double v : extra) {
    if (!(v > 0)) continue;
    lower = std::min(lower, v);
    upper = std::max(upper, v);
  }
  if (log) {
    if (!(upper > 0)) lower = 1, upper = 1000;
    axis->setRange(lower / 1.6, upper * 1.6);
  } else {
    axis->setRange(0, upper > 0 ? upper * 1.15 : 1);
  }
}

}  // namespace

LatencyCharts::LatencyCharts(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  legend_ = new ColorLegend;
  layout->addWidget(legend_);
  latency_ = new QCustomPlot(this);
  latency_->setObjectName(QStringLiteral("latencyPlot"));
  service_ = new QCustomPlot(this);
  service_->setObjectName(QStringLiteral("servicePlot"));
  misses_ = new MissChart(this);
  buildLatencyPlot();
  buildServicePlot();
  layout->addWidget(latency_, 2);
  layout->addWidget(misses_->plot(), 2);
  layout->addWidget(service_, 1);
  connect(misses_, &MissChart::legendChanged, this, [this] {
    if (view_ == missView) updateLegend();
  });
  setView(latencyView);
  setTheme(lightTheme());
}

void LatencyCharts::setView(View v) {
  view_ = v;
  latency_->setVisible(v == latencyView);
  misses_->plot()->setVisible(v == missView);
  updateLegend();
  replot();
  Q_EMIT viewChanged(v);
}

void LatencyCharts::buildLatencyPlot() {
  prepareLivePlot(latency_);
  for (const Metric m : {ttft, tpot}) {
    p50_[m] = latency_->addGraph();
    p99_[m] = latency_->addGraph();
    p99_[m]->setChannelFillGraph(p50_[m]);  // the band: from p50 up to p99
    sloLine_[m] = new QCPItemStraightLine(latency_);
  }
  p50_[ttft]->setName(tr("TTFT p50"));
  p99_[ttft]->setName(tr("TTFT p99"));
  p50_[tpot]->setName(tr("TPOT p50"));
  p99_[tpot]->setName(tr("TPOT p99"));
  for (auto& ghost : ghostLatency_) {
    for (QCPGraph*& g : ghost) g = latency_->addGraph();
  }
  latency_->yAxis->setScaleType(QCPAxis::stLogarithmic);
  latency_->yAxis->setTicker(QSharedPointer<SteppedLogTicker>::create());
  latency_->yAxis->setNumberFormat(QStringLiteral("gb"));
  latency_->yAxis->setLabel(tr("latency (ms, log)"));
  latency_->xAxis->setTickLabels(false);  // the plot below names the time axis
  // The SLOs' captions beside the plot, in the room the plot below keeps for its "waiting" axis:
  // inside, the TPOT SLO's caption sat on the TTFT data.
  sloCaptions_ = makeCaptionAxis(latency_);
  latency_->setMinimumHeight(110);
  connect(latency_, &QCustomPlot::afterLayout, this,
          [this] { fitAxesToSize(latency_, latency_->yAxis, tr("latency (ms, log)"), tr("ms")); });
  hideLegend(latency_);
}

void LatencyCharts::buildServicePlot() {
  prepareLivePlot(service_);
  goodput_ = service_->addGraph();
  goodput_->setName(tr("goodput"));
  goodput_->setLineStyle(QCPGraph::lsStepCenter);
  for (QCPGraph*& g : ghostGoodput_) {
    g = service_->addGraph();
    g->setLineStyle(QCPGraph::lsStepCenter);
  }
  service_->yAxis2->setVisible(true);
  // Requests waiting are whole: ticks at whole numbers, never 0.5.
  auto wholeTicks = QSharedPointer<QCPAxisTickerFixed>::create();
  wholeTicks->setTickStep(1.0);
  wholeTicks->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  service_->yAxis2->setTicker(wholeTicks);
  queue_ = service_->addGraph(service_->xAxis, service_->yAxis2);
  queue_->setName(tr("waiting"));
  queue_->setLineStyle(QCPGraph::lsStepLeft);
  queue_->setAdaptiveSampling(true);
  service_->yAxis->setLabel(tr("good req/s"));
  service_->yAxis2->setLabel(tr("waiting"));
  service_->xAxis->setLabel(tr("simulated time (s)"));
  service_->setMinimumHeight(80);
  connect(service_, &QCustomPlot::afterLayout, this, [this] {
    fitAxesToSize(service_, service_->yAxis, tr("good req/s"), tr("req/s"));
    // A short plot keeps its height for the data with a shorter name of its time axis.
    const QString time = service_->height() >= 110 ? tr("simulated time (s)") : tr("time (s)");
    if (service_->xAxis->label() != time) service_->xAxis->setLabel(time);
    service_->yAxis2->ticker()->setTickCount(service_->yAxis->ticker()->tickCount());
  });
  hideLegend(service_);
  // The plots' value axes line up (the miss plot's too), so their time axes do.
  auto* margins = new QCPMarginGroup(latency_);
  for (QCustomPlot* plot : {latency_, misses_->plot(), service_}) {
    plot->axisRect()->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
  }
}

void LatencyCharts::setTheme(const Theme& t) {
  theme_ = &t;
  for (QCustomPlot* plot : {latency_, service_}) applyPlotTheme(plot, t);
  misses_->setTheme(t);
  QCPAxis* right = service_->yAxis2;
  right->setBasePen(QPen(t.mutedText, 1));
  right->setTickPen(QPen(t.mutedText, 1));
  right->setSubTickPen(QPen(t.mutedText, 1));
  right->setTickLabelColor(t.text);
  right->setLabelColor(t.text);
  styleCaptionAxis(latency_->yAxis2, t.text, t.mutedText);
  const std::array<QColor, 2> colors{t.accent, t.level[3]};
  for (const Metric m : {ttft, tpot}) {
    p50_[m]->setPen(QPen(colors[m], 1.8));
    p99_[m]->setPen(QPen(mix(t.base, colors[m], 0.55), 1));
    QColor band = colors[m];
    band.setAlpha(t.dark ? 70 : 50);
    p99_[m]->setBrush(band);
    sloLine_[m]->setPen(QPen(colors[m], 1.2, Qt::DashLine));
    for (const Ghost g : {whatIf, currentRun}) {
      ghostLatency_[g][m]->setPen(QPen(mix(colors[m], t.text, 0.4), 1.5, g == whatIf ? Qt::DashLine : Qt::DotLine));
    }
  }
  goodput_->setPen(QPen(t.level[1], 1.8));
  for (const Ghost g : {whatIf, currentRun}) {
    ghostGoodput_[g]->setPen(QPen(mix(t.level[1], t.text, 0.4), 1.5, g == whatIf ? Qt::DashLine : Qt::DotLine));
  }
  queue_->setPen(QPen(t.usageLine, 1));
  updateLegend();
  replot();
}

void LatencyCharts::updateLegend() {
  using Swatch = ColorLegend::Swatch;
  const auto line = [](QCPGraph* g, const QString& text, const QString& tip) {
    return ColorLegend::Entry{g->pen().color(), text, tip, false, {}, Swatch::line, g->pen().style(), g->pen().widthF()};
  };
  // The miss view names its causes where the latency view names TTFT and TPOT.
  QVector<ColorLegend::Entry> entries;
  if (view_ == missView) {
    entries = misses_->legendEntries();
  } else {
    entries = {line(p50_[ttft], tr("TTFT"), tr("Time to first token: p50 line, p50–p99 band, per window of finish "
                                               "times; dashed straight line: its --slo")),
               line(p50_[tpot], tr("TPOT"), tr("Time per output token after the first: p50 line, p50–p99 band; "
                                               "dashed straight line: its --slo"))};
  }
  entries.push_back(line(goodput_, tr("goodput"), tr("Requests finished per second meeting every SLO (all of them "
                                                     "without one); the grey line is the queue: requests waiting, "
                                                     "each step (right axis)")));
  if (ghostShown_[whatIf]) {
    entries.push_back(line(ghostLatency_[whatIf][ttft], tr("what-if"),
                           tr("Dashed: p99s and goodput of the whole load run with the what-if config")));
  }
  if (ghostShown_[currentRun]) {
    entries.push_back(line(ghostLatency_[currentRun][ttft], tr("current"),
                           tr("Dotted: the same for the whole load run with the current config")));
  }
  legend_->setEntries(entries);
}

void LatencyCharts::setSlo(const slo_spec& slo) {
  misses_->setSlo(slo);
  const std::array<std::optional<double>, 2> limits{slo.ttft_s, slo.tpot_s};
  sloCaptions_->clear();
  for (const Metric m : {ttft, tpot}) {
    const bool shown = limits[m].has_value();
    sloLine_[m]->setVisible(shown);
    if (!shown) continue;
    const double v = *limits[m] * 1000;
    sloLine_[m]->point1->setCoords(0, v);
    sloLine_[m]->point2->setCoords(1, v);
    // Two short lines: the right-hand margin is as wide as the plot below's "waiting" axis.
    const QString limit = v >= 1000 ? tr("%1 s").arg(v / 1000, 0, 'g', 4) : tr("%1 ms").arg(v, 0, 'g', 4);
    sloCaptions_->addTick(v, tr("%1 SLO\n%2").arg(m == ttft ? tr("TTFT") : tr("TPOT"), limit));
  }
  updateLegend();
}

QStringList LatencyCharts::sloCaptions() const { return sloCaptions_->ticks().values(); }

double LatencyCharts::sloLineMs(Metric m) const {
  return sloLine_[m]->visible() ? sloLine_[m]->point1->coords().y() : nan;
}

void LatencyCharts::showSeries(const latency_series& s) {
  p50_[ttft]->data()->set(points(s, [](const latency_window& w) { return ms(w.ttft_s.p50); }), true);
  p99_[ttft]->data()->set(points(s, [](const latency_window& w) { return ms(w.ttft_s.p99); }), true);
  p50_[tpot]->data()->set(points(s, [](const latency_window& w) { return ms(w.tpot_s.p50); }), true);
  p99_[tpot]->data()->set(points(s, [](const latency_window& w) { return ms(w.tpot_s.p99); }), true);
  goodput_->data()->set(points(s, [](const latency_window& w) { return w.goodput_rps; }), true);
  misses_->showSeries(s);
}

void LatencyCharts::showGhost(Ghost g, const latency_series* s) {
  const bool shown = s != nullptr;
  const latency_series none;
  const latency_series& from = shown ? *s : none;
  ghostLatency_[g][ttft]->data()->set(points(from, [](const latency_window& w) { return ms(w.ttft_s.p99); }), true);
  ghostLatency_[g][tpot]->data()->set(points(from, [](const latency_window& w) { return ms(w.tpot_s.p99); }), true);
  ghostGoodput_[g]->data()->set(points(from, [](const latency_window& w) { return w.goodput_rps; }), true);
  for (QCPGraph* graph : {ghostLatency_[g][ttft], ghostLatency_[g][tpot], ghostGoodput_[g]}) graph->setVisible(shown);
  if (ghostShown_[g] != shown) {
    ghostShown_[g] = shown;
    updateLegend();
  }
}

void LatencyCharts::appendQueue(const step_metrics& m) {
  const double waiting = static_cast<double>(m.num_requests_waiting);
  queue_->addData(m.sim_time_s, waiting);
  queueMax_ = std::max(queueMax_, waiting);
}

void LatencyCharts::clearQueue() {
  queue_->data()->clear();
  queueMax_ = 0;
}

std::size_t LatencyCharts::queuePoints() const { return static_cast<std::size_t>(queue_->dataCount()); }

void LatencyCharts::fitRanges(double end_s) {
  const double end = std::max(end_s, 1.0);
  latency_->xAxis->setRange(0, end);
  service_->xAxis->setRange(0, end);
  misses_->fitRanges(end);
  fitValueAxis(latency_->yAxis,
               {p50_[ttft], p99_[ttft], p50_[tpot], p99_[tpot], ghostLatency_[0][0], ghostLatency_[0][1],
                ghostLatency_[1][0], ghostLatency_[1][1]},
               {sloLineMs(ttft), sloLineMs(tpot)}, true);
  fitValueAxis(service_->yAxis, {goodput_, ghostGoodput_[0], ghostGoodput_[1]}, {}, false);
  service_->yAxis2->setRange(0, queueMax_ > 0 ? queueMax_ * 1.15 : 1);
}

void LatencyCharts::replot() {
  // Only the plot in view: the other is brought up to date when it is shown.
  (view_ == missView ? misses_->plot() : latency_)->replot(QCustomPlot::rpQueuedReplot);
  service_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace kvscope::ui
