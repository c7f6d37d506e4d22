#include "plots/memory_plot.hpp"

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPieSeries>
#include <QPieSlice>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "plots/ghost_graphs.hpp"
#include "common/level_legend.hpp"
#include "common/live_label.hpp"
#include "common/qcustomplot_include.hpp"

namespace kvscope::ui {
namespace {

// The plot's height where the panel has room, and the least it takes to make room for one
// line of summary (a panel on a 768-pixel screen at 200 % is about 240 pixels).
constexpr int plotPreferredHeight = 160;
constexpr int plotLeastHeight = 110;

constexpr double kib = 1024.0;
constexpr double mib = 1024.0 * kib;
constexpr double gib = 1024.0 * mib;

// In the unit the size reads best in: a tour's 80 KiB pool is not "0.0 MiB".
QString bytesText(double bytes) {
  if (bytes == 0) return QObject::tr("0 B");
  if (bytes >= gib) return QObject::tr("%1 GiB").arg(bytes / gib, 0, 'f', 2);
  if (bytes >= mib) return QObject::tr("%1 MiB").arg(bytes / mib, 0, 'f', 1);
  return QObject::tr("%1 KiB").arg(bytes / kib, 0, 'f', 1);
}

QString unitName(double unit) {
  return unit == gib ? QObject::tr("GiB") : unit == mib ? QObject::tr("MiB") : QObject::tr("KiB");
}

// The height rich `text` takes wrapped to `width` in `font`, as a LiveLabel lays it out.
int wrappedHeight(QTextDocument& document, const QString& text, const QFont& font, int width) {
  document.setDocumentMargin(0);
  document.setDefaultFont(font);
  document.setHtml(text);
  document.setTextWidth(std::max(1, width));
  return std::max(QFontMetrics(font).height(), static_cast<int>(std::ceil(document.size().height())));
}

}  // namespace

MemoryBreakdown MemoryBreakdown::of(const step_metrics& m) {
  MemoryBreakdown b;
  for (precision p : all_precisions) {
    const double bytes = static_cast<double>(m.bytes_per_level[static_cast<std::size_t>(ordinal(p))]);
    b.payload += bytes;
    b.fp16Equivalent += bytes / nominal_factor(p);
  }
  b.scales = static_cast<double>(m.scale_bytes);
  b.effective = b.payload + b.scales;
  b.cached = std::min(static_cast<double>(m.cached_bytes), b.effective);
  b.saving = b.fp16Equivalent > 0 ? 1.0 - b.effective / b.fp16Equivalent : 0.0;
  return b;
}

MemoryPlot::MemoryPlot(QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(4, 2, 4, 2);
  outer->setSpacing(2);
  auto* row = new QHBoxLayout;
  outer->addLayout(row, 1);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName(QStringLiteral("memoryPlot"));
  prepareLivePlot(plot_);
  const char* names[] = {"fp16", "q8", "fp8", "q4", "q3", "scales"};
  // Each layer is its cumulative sum filled down to zero with an opaque brush, drawn from the
  // top of the stack down, so each covers the lower part of the one before: the stacked look
  // without channel fills between graphs, which cost several times more to draw.
  for (std::size_t i = layers_.size(); i-- > 0;) {
    layers_[i] = plot_->addGraph();
    layers_[i]->setName(QString::fromLatin1(names[i]));
    layers_[i]->setAdaptiveSampling(true);
  }
  // Blocks only the prefix cache keeps, as the pressure counts them: free on demand. A band at
  // the top of the stack, from what sequences use up to all that is held.
  inUse_ = plot_->addGraph();
  inUse_->setAdaptiveSampling(true);
  cached_ = plot_->addGraph();
  cached_->setName(tr("cached prefix"));
  cached_->setAdaptiveSampling(true);
  cached_->setChannelFillGraph(inUse_);
  plot_->legend->clearItems();
  for (QCPGraph* g : layers_) g->addToLegend();
  cached_->addToLegend();
  // Halos: the what-if's dashed lines run along the stacked areas' edges, where they were lost.
  ghost_ = std::make_unique<GhostGraphs>(plot_, layers_.size(), true);
  // Antialiased fills of five big polygons were most of a redraw's cost; stacked areas of
  // opaque colour look the same without.
  plot_->setNotAntialiasedElements(QCP::aeFills | QCP::aePlottables);
  plot_->setPlottingHint(QCP::phFastPolylines, true);
  budgetLine_ = new QCPItemLine(plot_);
  budgetText_ = new QCPItemText(plot_);
  for (auto* pos : {budgetLine_->start, budgetLine_->end, budgetText_->position}) {
    pos->setTypeX(QCPItemPosition::ptAxisRectRatio);
    pos->setTypeY(QCPItemPosition::ptPlotCoords);
  }
  budgetText_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  plot_->yAxis->setLabel(tr("MiB held"));
  plot_->xAxis->setLabel(tr("simulated time (s)"));
  connect(plot_, &QCustomPlot::afterLayout, this, [this] {
    fitAxesToSize(plot_, plot_->yAxis, tr("%1 held").arg(unitName(unit_)), unitName(unit_));
  });
  hideLegend(plot_);
  plot_->setMinimumHeight(plotLeastHeight);
  auto* left = new QVBoxLayout;
  left->setSpacing(0);
  legend_ = new ColorLegend;
  left->addWidget(legend_);
  left->addWidget(plot_, 1);
  // The plot carries the history; the donut only the moment, and reads as well when narrower.
  row->addLayout(left, 5);
  row->addWidget(buildDonut(), 2);

  // Live updates replot at most ~15 times a second: the stacked areas move slowly, and their
  // fills are the costliest drawing of the window (see gui_bench).
  replotTimer_ = new QTimer(this);
  replotTimer_->setSingleShot(true);
  replotTimer_->setInterval(66);
  connect(replotTimer_, &QTimer::timeout, this, [this] { plot_->replot(); });

  summary_ = new LiveLabel(Qt::RichText);
  summary_->setWordWrap(true);
  outer->addWidget(summary_);
  setTheme(lightTheme());
}

QChartView* MemoryPlot::buildDonut() {
  donut_ = new QPieSeries;
  donut_->setHoleSize(0.52);
  donut_->setPieSize(0.9);
  const char* sliceNames[] = {"fp16", "q8", "fp8", "q4", "q3", "scales", "free"};
  for (std::size_t i = 0; i < slices_.size(); ++i) {
    slices_[i] = donut_->append(QString::fromLatin1(sliceNames[i]), i == kv_level_count + 1 ? 1.0 : 0.0);
    slices_[i]->setBorderWidth(0);
  }
  auto* chart = new QChart;
  chart->addSeries(donut_);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setVisible(true);
  chart->legend()->setAlignment(Qt::AlignRight);
  chart->setMargins(QMargins(0, 0, 0, 0));
  chart->setBackgroundRoundness(0);
  chart->setTitle(tr("held now"));  // by level: cached prefix blocks included
  donutView_ = new QChartView(chart);
  donutView_->setRenderHint(QPainter::Antialiasing);
  donutView_->setMinimumWidth(140);
  donutView_->installEventFilter(this);  // its legend only where it has room (eventFilter)
  return donutView_;
}

void MemoryPlot::setTheme(const Theme& t) {
  theme_ = &t;
  applyPlotTheme(plot_, t);
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const QColor c = i < kv_level_count ? t.level[i] : t.scales;
    layers_[i]->setPen(QPen(c, 1));
    layers_[i]->setBrush(mix(t.base, c, 0.55));  // opaque: no alpha on big series
  }
  QVector<ColorLegend::Entry> entries;
  for (std::size_t i = layers_.size(); i-- > 0;) {
    entries.push_front({layers_[i]->brush().color(), layers_[i]->name(), {}, false, {}});
  }
  entries.back().toolTip = tr("Scales (and minimums) of the quantized blocks: real bytes, counted in the budget");
  cached_->setPen(QPen(t.cachedBlock, 1));
  cached_->setBrush(t.cachedBlock);
  inUse_->setPen(QPen(mix(t.cachedBlock, t.text, 0.4), 1));
  entries.push_back({t.cachedBlock, cached_->name(),
                     tr("Blocks no sequence uses, kept for prefix-cache hits (their level's colour is "
                        "covered): evicted when memory is needed, so the pressure counts them as free"),
                     false, {}});
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    // Darker than the fills they cross, so the outline shows over its own level's area.
    ghost_->setStyle(i, mix(i < kv_level_count ? t.level[i] : t.scales, t.text, 0.45), tr("what-if %1").arg(layers_[i]->name()), 2);
  }
  ghost_->setHaloColor(t.base);
  ghost_->addLegendEntry(entries, 0, tr("what-if"),
                         tr("Dashed: the same stack for the whole load run again with the what-if config"));
  legend_->setEntries(entries);
  budgetLine_->setPen(QPen(t.text, 1, Qt::DashLine));
  budgetText_->setColor(t.text);
  for (std::size_t i = 0; i < slices_.size(); ++i) {
    const QColor c = i < kv_level_count ? t.level[i] : (i == kv_level_count ? t.scales : t.freeFrame);
    slices_[i]->setColor(c);
    slices_[i]->setBorderColor(t.base);
  }
  QChart* chart = donutView_->chart();
  chart->setBackgroundBrush(t.window);
  chart->setTitleBrush(t.text);
  chart->legend()->setLabelColor(t.text);
  donutView_->setBackgroundBrush(t.window);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

MemoryPlot::~MemoryPlot() = default;

void MemoryPlot::setGhost(std::shared_ptr<const metrics_history> trace) {
  ghost_->show(std::move(trace), [this](const step_metrics& m, std::size_t line) { return stackedTop(m, line); });
  setTheme(*theme_);  // the legend names the ghost while it is drawn
}

std::size_t MemoryPlot::ghostPoints() const { return ghost_->pointCount(); }

double MemoryPlot::stackedTop(const step_metrics& m, std::size_t layer) const {
  double sum = 0;
  for (std::size_t i = 0; i <= layer; ++i) {
    sum += static_cast<double>(i < kv_level_count ? m.bytes_per_level[i] : m.scale_bytes);
  }
  return sum / unit_;
}

void MemoryPlot::setHistory(const metrics_history* history) {
  history_ = history;
  reloadGraphs();
}

void MemoryPlot::clearHistory() { reloadGraphs(); }

void MemoryPlot::setTimeRange(double lower, double upper) {
  plot_->xAxis->setRange(lower, upper);
  if (isVisible()) requestReplot();
}

void MemoryPlot::requestReplot() {
  if (!replotTimer_->isActive()) replotTimer_->start();
}

void MemoryPlot::appendPoint(const step_metrics& m) {
  double sum = 0;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    sum += static_cast<double>(i < kv_level_count ? m.bytes_per_level[i] : m.scale_bytes) / unit_;
    layers_[i]->addData(m.sim_time_s, sum);
  }
  cached_->addData(m.sim_time_s, sum);
  inUse_->addData(m.sim_time_s, sum - std::min(static_cast<double>(m.cached_bytes) / unit_, sum));
  ++graphPoints_;
}

void MemoryPlot::reloadGraphs() {
  for (QCPGraph* g : layers_) g->data()->clear();
  cached_->data()->clear();
  inUse_->data()->clear();
  graphPoints_ = 0;
  if (history_) history_->for_each_point([this](const step_metrics& m) { appendPoint(m); });
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryPlot::appendMetrics(const MetricsPtr& metrics) {
  if (!metrics || metrics->empty() || !history_) return;
  for (const step_metrics& m : *metrics) appendPoint(m);
  if (graphsOutgrew(graphPoints_, *history_)) {
    reloadGraphs();
  } else if (isVisible()) {
    requestReplot();
  }
}

void MemoryPlot::setSnapshot(const SnapshotPtr& snapshot) {
  if (!snapshot) return;
  const double budget = static_cast<double>(snapshot->budget_bytes);
  if (budget != budget_) {
    budget_ = budget;
    // KiB for a tour's tiny pool, MiB up to a few GiB of budget, GiB beyond: axis numbers
    // people can read.
    const double unit = budget >= 4 * gib ? gib : budget >= 4 * mib ? mib : kib;
    plot_->yAxis->setLabel(tr("%1 held").arg(unitName(unit)));  // fitted at the next layout
    budgetLine_->start->setCoords(0, budget / unit);
    budgetLine_->end->setCoords(1, budget / unit);
    budgetText_->position->setCoords(0.01, budget / unit);
    budgetText_->setText(tr("budget %1").arg(bytesText(budget)));
    plot_->yAxis->setRange(0, budget / unit * 1.12);
    if (unit != unit_) {
      unit_ = unit;
      reloadGraphs();
      ghost_->refresh([this](const step_metrics& m, std::size_t line) { return stackedTop(m, line); });
    }
  }
  updateDonut(snapshot->latest, !snapshot->playing);
}

void MemoryPlot::updateDonut(const step_metrics& m, bool exact) {
  std::array<double, kv_level_count + 2> values{};  // the levels, scales, free
  for (std::size_t l = 0; l < kv_level_count; ++l) values[l] = static_cast<double>(m.bytes_per_level[l]);
  values[kv_level_count] = static_cast<double>(m.scale_bytes);
  values[kv_level_count + 1] = static_cast<double>(m.free_bytes);
  // Redrawing the chart is a fifth of a window refresh; while the engine runs, skip changes
  // smaller than 0.2 % of the ring (under a pixel of arc at the size it is shown). A paused
  // run always shows its exact numbers.
  double total = 0, moved = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    total += values[i];
    moved = std::max(moved, std::abs(values[i] - slices_[i]->value()));
  }
  if (exact || moved > 0.002 * total) {
    for (std::size_t i = 0; i < values.size(); ++i) slices_[i]->setValue(values[i]);
  }
  setSummary(MemoryBreakdown::of(m));
}

void MemoryPlot::setSummary(const MemoryBreakdown& b) {
  // "In use" is what the pressure counts; cached prefix blocks are held but free on demand.
  QString text = b.cached > 0
                     ? tr("<b>In use %1</b>, <b>cached %2</b> (prefix blocks no sequence uses, evicted on "
                          "demand): held %3 = blocks %4 + scales %5. ")
                           .arg(bytesText(b.effective - b.cached), bytesText(b.cached), bytesText(b.effective),
                                bytesText(b.payload), bytesText(b.scales))
                     : tr("<b>In use %1</b> = blocks %2 + scales %3. ")
                           .arg(bytesText(b.effective), bytesText(b.payload), bytesText(b.scales));
  // The short form keeps the figures the pressure and the saving are about.
  QString brief = b.cached > 0 ? tr("<b>In use %1</b>, <b>cached %2</b>").arg(bytesText(b.effective - b.cached), bytesText(b.cached))
                               : tr("<b>In use %1</b>").arg(bytesText(b.effective));
  if (b.fp16Equivalent > 0) {
    text += tr("The same blocks in fp16 would take %1: <b>%2 % saved</b> vs an all-fp16 cache.")
                .arg(bytesText(b.fp16Equivalent))
                .arg(b.saving * 100, 0, 'f', 1);
    brief += tr(": <b>%1 % saved</b> vs fp16").arg(b.saving * 100, 0, 'f', 1);
  }
  fullSummary_ = text;
  briefSummary_ = brief + QLatin1Char('.');
  fitSummary();
}

void MemoryPlot::fitSummary() {
  // A word-wrapped label's height is no part of its layout's least height, so a short panel
  // (a 768-pixel screen at 200 %) drew the whole sentence over the plot's axis. The whole
  // sentence where it fits below the plot at its preferred height, else the short form (the
  // whole one in the tooltip), else, on a panel too short for a line, no summary.
  const QMargins margins = layout()->contentsMargins();
  const int width = this->width() - margins.left() - margins.right();
  const int room = height() - margins.top() - margins.bottom() - layout()->spacing() - legend_->height();
  const QFont font = summary_->font();
  const bool whole = room - plotPreferredHeight >= wrappedHeight(measure_, fullSummary_, font, width);
  const bool brief = whole || room - plotLeastHeight >= wrappedHeight(measure_, briefSummary_, font, width);
  summary_->setText(whole ? fullSummary_ : briefSummary_);
  summary_->setToolTip(whole ? QString() : QTextDocumentFragment::fromHtml(fullSummary_).toPlainText());
  summary_->setVisible(brief);
}

void MemoryPlot::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitSummary();
}

QString MemoryPlot::summaryText() const { return summary_->text(); }

bool MemoryPlot::eventFilter(QObject* watched, QEvent* event) {
  // A narrow donut drops its legend (the legend above the plot has the same colours) rather
  // than shrink the ring to a dot.
  if (watched == donutView_ && event->type() == QEvent::Resize) {
    donutView_->chart()->legend()->setVisible(donutView_->width() >= 250);
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace kvscope::ui
