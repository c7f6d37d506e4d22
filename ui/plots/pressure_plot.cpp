#include "plots/pressure_plot.hpp"

#include <QCheckBox>
#include <QHelpEvent>
#include <QToolTip>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include <cmath>

#include "common/qcustomplot_include.hpp"

#include "plots/ghost_graphs.hpp"
#include "plots/level_background.hpp"
#include "common/level_legend.hpp"
#include "plots/plot_items.hpp"
#include "plots/transition_marks.hpp"
#include "plots/whatif_thresholds.hpp"

namespace kvscope::ui {

namespace {

constexpr Qt::PenStyle usageStyle = Qt::DashLine;

// The thresholds, in the order of thresholdLines_: the level each moves to and its line's style.
constexpr std::size_t thresholdLevel[] = {1, 3, 4};
constexpr Qt::PenStyle thresholdStyle[] = {Qt::DashLine, Qt::DashDotLine, Qt::DotLine};
const char* const thresholdName[] = {"q8", "q4", "q3"};

// The controller's thresholds, q8, q4, q3; none for the other families, no q3 unless set.
std::array<std::optional<double>, 3> thresholdValues(const policy_config& p) {
  if (p.family != policy_family::ewma) return {};
  std::optional<double> q3;
  if (p.q3_threshold) q3 = *p.q3_threshold;
  return {double{p.q8_threshold}, double{p.q4_threshold}, q3};
}

}  // namespace

PressurePlot::PressurePlot(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  layout->setSpacing(2);
  layout->addLayout(buildBar());
  seriesLegend_ = new ColorLegend;
  layout->addWidget(seriesLegend_);
  plot_ = new QCustomPlot(this);
  buildPlot();
  layout->addWidget(plot_, 1);

  // Sizes known, ticks not made yet: fit ticks, label and captions to the room there is.
  connect(plot_, &QCustomPlot::afterLayout, this, [this] {
    fitAxesToSize(plot_, plot_->yAxis, fullYLabel(), tr("pressure"));
    placeCaptions();
    // Zoomed or resized: markers cluster at the new scale (a live window keeps its scale).
    const double span = clusterSpan();
    if (std::abs(span - clusterSpan_) > 0.02 * std::max(span, clusterSpan_)) updateMarkers();
  });
  connect(plot_, &QCustomPlot::mousePress, this, [this] { setLive(false); });
  connect(plot_, &QCustomPlot::mouseWheel, this, [this] { setLive(false); });
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] { setLive(true); });
  connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          [this](const QCPRange& r) { Q_EMIT timeRangeChanged(r.lower, r.upper); });
  setTheme(lightTheme());
  placeThresholds();
}

QLayout* PressurePlot::buildBar() {
  auto* bar = new QHBoxLayout;
  liveBox_ = new QCheckBox(tr("Live"));
  liveBox_->setChecked(true);
  liveBox_->setToolTip(tr("Follow the newest step. Drag or scroll on the plot to browse the "
                          "history; double-click it to come back to live."));
  windowBox_ = new QComboBox;
  for (auto [label, secs] : {std::pair{"10 s", 10}, {"30 s", 30}, {"2 min", 120}, {"10 min", 600}}) {
    windowBox_->addItem(tr("window %1").arg(QString::fromLatin1(label)), secs);
  }
  windowBox_->setCurrentIndex(1);
  auto* allButton = new QPushButton(tr("Whole run"));
  allButton->setToolTip(tr("Zoom out to the whole history (older steps are thinned)"));
  legend_ = new ColorLegend;
  bar->addWidget(liveBox_);
  bar->addWidget(windowBox_);
  bar->addWidget(allButton);
  bar->addSpacing(12);
  bar->addWidget(new QLabel(tr("level:")));
  bar->addWidget(legend_);
  bar->addStretch();
  connect(liveBox_, &QCheckBox::toggled, this, &PressurePlot::setLive);
  connect(windowBox_, &QComboBox::currentIndexChanged, this, [this] {
    window_ = windowBox_->currentData().toDouble();
    setLive(true);
  });
  connect(allButton, &QPushButton::clicked, this, &PressurePlot::showAll);
  return bar;
}

void PressurePlot::buildPlot() {
  plot_->setObjectName(QStringLiteral("pressurePlot"));
  prepareLivePlot(plot_);
  plot_->addLayer(QStringLiteral("levels"), plot_->layer(QStringLiteral("background")), QCustomPlot::limAbove);
  plot_->addLayer(QStringLiteral("bands"), plot_->layer(QStringLiteral("levels")), QCustomPlot::limAbove);
  plot_->addLayer(QStringLiteral("captions"), plot_->layer(QStringLiteral("main")), QCustomPlot::limAbove);
  levels_ = new LevelBackground(plot_);
  clusterMarks_ = new ClusterMarks(plot_);
  clusterMarks_->setClusters(&clusters_);
  plot_->installEventFilter(this);  // marker tooltips

  usage_ = plot_->addGraph();
  usage_->setName(tr("raw usage"));
  ewma_ = plot_->addGraph();
  ewma_->setName(tr("EWMA"));
  compress_ = plot_->addGraph();
  compress_->setName(tr("level up"));
  compress_->setLineStyle(QCPGraph::lsNone);
  relax_ = plot_->addGraph();
  relax_->setName(tr("level down"));
  relax_->setLineStyle(QCPGraph::lsNone);
  latest_ = plot_->addGraph();
  latest_->setName(tr("this step"));
  latest_->setLineStyle(QCPGraph::lsNone);
  latest_->removeFromLegend();
  for (QCPGraph* g : {usage_, ewma_}) g->setAdaptiveSampling(true);
  ghost_ = std::make_unique<GhostGraphs>(plot_, 1);

  for (QCPItemRect*& band : thresholdBands_) band = makeLevelBand(plot_, QStringLiteral("bands"));
  for (QCPItemLine*& line : thresholdLines_) line = makeLevelLine(plot_, QStringLiteral("bands"));
  whatIfThresholds_ = std::make_unique<WhatIfThresholds>(plot_);

  plot_->yAxis->setRange(0, 1.04);
  // Beside the plot, not in it: inside, a caption covered the EWMA wherever it crossed a threshold.
  captions_ = makeCaptionAxis(plot_);
  plot_->yAxis->setLabel(fullYLabel());
  plot_->xAxis->setLabel(tr("simulated time (s)"));
  plot_->xAxis->setRange(0, window_);
  hideLegend(plot_);  // seriesLegend_ instead, while live (exports put it back)
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->axisRect()->setRangeDrag(Qt::Horizontal);
  plot_->axisRect()->setRangeZoom(Qt::Horizontal);
  plot_->setMinimumHeight(160);
}

void PressurePlot::setTheme(const Theme& t) {
  theme_ = &t;
  levels_->setTheme(&t);
  clusterMarks_->setTheme(&t);
  applyPlotTheme(plot_, t);
  // Styles as well as colours: in the dark theme the two greys are close.
  usage_->setPen(QPen(t.usageLine, 1, usageStyle));
  ewma_->setPen(QPen(t.ewmaLine, 2));
  compress_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle, t.text, t.level[3], 9));
  relax_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangleInverted, t.text, t.level[0], 9));
  latest_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(t.accent, 2.5), Qt::NoBrush, 15));
  for (std::size_t i = 0; i < thresholdLines_.size(); ++i) {
    QColor fill = t.level[thresholdLevel[i]];
    fill.setAlpha(t.dark ? 70 : 50);
    thresholdBands_[i]->setBrush(fill);
    thresholdLines_[i]->setPen(QPen(t.level[thresholdLevel[i]], 1, thresholdStyle[i]));
  }
  using Swatch = ColorLegend::Swatch;
  QVector<ColorLegend::Entry> series(
      {{t.usageLine, usage_->name(), tr("KV cache usage: bytes referenced by running sequences / budget, each step"), false, {},
        Swatch::line, usageStyle, 1},
       {t.ewmaLine, ewma_->name(), tr("EWMA of the pressure: the smoothed value the policy compares with its thresholds"), false, {},
        Swatch::line, Qt::SolidLine, 2},
       {t.level[3], compress_->name(), tr("The policy moved to a more compact level (compress)"), false, t.text, Swatch::triangleUp},
       {t.level[0], relax_->name(), tr("The policy moved back to a less compact level (relax)"), false, t.text, Swatch::triangleDown},
       {t.accent, tr("n changes"), tr("Level changes too close together to draw apart at this zoom: hover for "
                                             "how many went up and down, zoom in to see each"), false, t.text, Swatch::circle}});
  ghost_->setStyle(0, t.accent, tr("what-if EWMA"), 2);
  whatIfThresholds_->setTheme(t);
  ghost_->addLegendEntry(series, 0, tr("what-if EWMA"),
                         tr("The EWMA of the whole load run again with the what-if config"));
  seriesLegend_->setEntries(series);
  styleCaptionAxis(plot_->yAxis2, t.text, t.mutedText);
  legend_->setEntries({{t.level[0], QStringLiteral("fp16"), tr("no compression"), false, {}},
                       {t.level[1], QStringLiteral("q8"), tr("cold blocks 8-bit"), false, {}},
                       {t.level[2], QStringLiteral("fp8"), tr("cold blocks fp8 (only by clamping)"), false, {}},
                       {t.level[3], QStringLiteral("q4"), tr("cold blocks 4-bit"), false, {}},
                       {t.level[4], QStringLiteral("q3"), tr("cold blocks 3-bit (only with a q3 threshold)"), false, {}}});
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void PressurePlot::placeThresholds() {
  const auto at = thresholdValues(policy_);
  const double h = policy_.hysteresis;
  for (std::size_t i = 0; i < at.size(); ++i) {
    // Hidden where there is no such threshold: the other families, or q3 left off.
    thresholdLines_[i]->setVisible(at[i].has_value());
    thresholdBands_[i]->setVisible(at[i].has_value());
    if (!at[i]) continue;
    thresholdLines_[i]->start->setCoords(0, *at[i]);
    thresholdLines_[i]->end->setCoords(1, *at[i]);
    thresholdBands_[i]->topLeft->setCoords(0, *at[i]);
    thresholdBands_[i]->bottomRight->setCoords(1, std::max(0.0, *at[i] - h));
  }
  // The other families have no controller: no EWMA to follow.
  ewma_->setVisible(policy_.family == policy_family::ewma);
  placeCaptions();
}

void PressurePlot::placeCaptions() {
  // In pixels, not pressure units: on a short plot a caption gives way to the one above it
  // (q8's to q4's, q4's to q3's), the more compact level's.
  captions_->clear();
  const auto at = thresholdValues(policy_);
  const double height = plot_->axisRect()->height();
  const double px = height > 0 ? height / plot_->yAxis->range().size() : 0;
  const double text = QFontMetrics(plot_->yAxis2->tickLabelFont()).height();
  std::optional<double> above;  // the caption placed last, just above this one
  for (std::size_t i = at.size(); i-- > 0;) {
    if (!at[i] || (height > 0 && above && (*above - *at[i]) * px < text)) continue;
    captions_->addTick(*at[i], tr("%1 ≥ %2").arg(QLatin1String(thresholdName[i])).arg(*at[i], 0, 'f', 2));
    above = at[i];
  }
}

QList<QPair<double, QString>> PressurePlot::thresholdCaptions() const {
  QList<QPair<double, QString>> out;
  for (auto it = captions_->ticks().cbegin(); it != captions_->ticks().cend(); ++it) out.append({it.key(), it.value()});
  return out;
}

std::pair<double, double> PressurePlot::timeRange() const {
  return {plot_->xAxis->range().lower, plot_->xAxis->range().upper};
}

double PressurePlot::q8LineValue() const { return thresholdLines_[0]->start->coords().y(); }
bool PressurePlot::thresholdsShown() const { return thresholdLines_[0]->visible() && thresholdLines_[1]->visible(); }
double PressurePlot::q4BandBottom() const { return thresholdBands_[1]->bottomRight->coords().y(); }
bool PressurePlot::q3ThresholdShown() const { return thresholdLines_[2]->visible(); }
double PressurePlot::q3LineValue() const { return thresholdLines_[2]->start->coords().y(); }

QString PressurePlot::fullYLabel() const { return tr("pressure (used / budget)"); }

PressurePlot::~PressurePlot() = default;

void PressurePlot::setGhost(std::shared_ptr<const metrics_history> trace, std::optional<policy_config> whatIf) {
  whatIfPolicy_ = trace ? whatIf : std::nullopt;
  whatIfThresholds_->show(whatIfPolicy_, policy_);
  ghost_->show(std::move(trace), [](const step_metrics& m, std::size_t) { return m.pressure_ewma; });
  setTheme(*theme_);  // the legend names the ghost while it is drawn
}

std::size_t PressurePlot::ghostPoints() const { return ghost_->pointCount(); }

void PressurePlot::setPolicy(const policy_config& config) {
  if (config == policy_) return;
  policy_ = config;
  placeThresholds();
  whatIfThresholds_->show(whatIfPolicy_, policy_);
  placeCaptions();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void PressurePlot::setHistory(const metrics_history* history) {
  history_ = history;
  levels_->setHistory(history);
  clearHistory();
}

void PressurePlot::clearHistory() {
  markersShown_ = 0;
  reloadGraphs();
  updateRange();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void PressurePlot::appendMetrics(const MetricsPtr& metrics) {
  if (!metrics || metrics->empty() || !history_) return;
  QVector<double> t, usage, ewma;
  for (const step_metrics& m : *metrics) {
    t.push_back(m.sim_time_s);
    usage.push_back(m.kv_cache_usage_perc);
    ewma.push_back(m.pressure_ewma);
  }
  usage_->addData(t, usage, true);
  ewma_->addData(t, ewma, true);
  graphPoints_ += metrics->size();
  if (graphsOutgrew(graphPoints_, *history_)) {
    reloadGraphs();
  } else if (history_->transitions_seen() != markersShown_) {
    updateMarkers();
  }
  updateLatest();
  updateRange();
  if (isVisible()) plot_->replot(QCustomPlot::rpQueuedReplot);
}

void PressurePlot::reloadGraphs() {
  QVector<QCPGraphData> usage, ewma;
  if (history_) {
    usage.reserve(static_cast<qsizetype>(history_->point_count()));
    ewma.reserve(usage.capacity());
    history_->for_each_point([&](const step_metrics& m) {
      usage.push_back({m.sim_time_s, m.kv_cache_usage_perc});
      ewma.push_back({m.sim_time_s, m.pressure_ewma});
    });
  }
  graphPoints_ = static_cast<std::size_t>(usage.size());
  usage_->data()->set(usage, true);
  ewma_->data()->set(ewma, true);
  updateMarkers();
  updateLatest();
}

void PressurePlot::setMarkLatest(bool mark) {
  markLatest_ = mark;
  updateLatest();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void PressurePlot::updateLatest() {
  QVector<QCPGraphData> point;
  if (markLatest_ && history_ && !history_->empty()) {
    point.push_back({history_->last_point().sim_time_s, history_->last_point().pressure_ewma});
  }
  latest_->data()->set(point, true);
}

double PressurePlot::clusterSpan() const {
  const int width = plot_->axisRect()->width();
  return width > 0 ? ClusterMarks::diameter * plot_->xAxis->range().size() / width : 0;
}

void PressurePlot::updateMarkers() {
  QVector<QCPGraphData> up, down;
  clusterSpan_ = clusterSpan();
  clusters_ = history_ ? clusterTransitions(history_->transitions(), clusterSpan_) : std::vector<TransitionCluster>{};
  for (const TransitionCluster& c : clusters_) {
    if (c.count() == 1) (c.up ? up : down).push_back({c.time, c.ewma});  // the rest: ClusterMarks
  }
  compress_->data()->set(up, true);
  relax_->data()->set(down, true);
  markersShown_ = history_ ? history_->transitions_seen() : 0;
}

QString PressurePlot::markerToolTip(const QPointF& pixel) const {
  const TransitionCluster* nearest = nullptr;
  double best = ClusterMarks::diameter / 2 + 3;
  for (const TransitionCluster& c : clusters_) {
    // A single change is a triangle on the curve; a cluster's pill sits off it.
    const QPointF onCurve(plot_->xAxis->coordToPixel(c.time), plot_->yAxis->coordToPixel(c.ewma));
    const QPointF at = c.count() > 1 ? clusterMarkCentre(onCurve, plot_->axisRect()->rect()) : onCurve;
    const double d = std::hypot(at.x() - pixel.x(), at.y() - pixel.y());
    if (d <= best) {
      best = d;
      nearest = &c;
    }
  }
  return nearest ? describeCluster(*nearest) : QString();
}

bool PressurePlot::eventFilter(QObject* watched, QEvent* event) {
  if (watched == plot_ && event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = markerToolTip(help->pos());
    if (text.isEmpty()) {
      QToolTip::hideText();
    } else {
      QToolTip::showText(help->globalPos(), text, plot_);
    }
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

void PressurePlot::updateRange() {
  if (!live_) return;
  // A young run fills the width (the axis grows with it) instead of hugging the left edge;
  // once it is longer than the window, the window scrolls.
  const double end = !history_ || history_->empty() ? 0 : history_->last_point().sim_time_s;
  const double upper = end < window_ ? std::min(window_, std::max(2.0, end * 1.08)) : end;
  plot_->xAxis->setRange(std::max(0.0, upper - window_), upper);
}

void PressurePlot::setLive(bool live) {
  live_ = live;
  if (liveBox_->isChecked() != live) liveBox_->setChecked(live);
  updateRange();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void PressurePlot::showAll() {
  setLive(false);
  if (!history_ || history_->empty()) return;
  plot_->xAxis->setRange(history_->first_point().sim_time_s, std::max(history_->last_point().sim_time_s, 1.0));
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace kvscope::ui
