#include "plots/sweep_scatter.hpp"

#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/qcustomplot_include.hpp"
#include "run/metric_table.hpp"
#include "sweep/pareto.hpp"

namespace kvscope::ui {
namespace {

constexpr double pickRadius = 8;  // pixels: how near the pointer a point must be to be picked

QString number(double v) { return QString::number(v, 'g', 6); }

QString withUnit(double v, std::string_view unit) {
  return unit.empty() ? number(v) : QStringLiteral("%1 %2").arg(number(v), QString::fromUtf8(unit.data(), static_cast<int>(unit.size())));
}

}  // namespace

SweepScatter::SweepScatter(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  plot_ = new QCustomPlot(this);
  plot_->setObjectName(QStringLiteral("sweepPlot"));
  plot_->setMouseTracking(true);
  layout->addWidget(plot_);
  points_ = plot_->addGraph();
  points_->setLineStyle(QCPGraph::lsNone);
  points_->setName(tr("configs"));
  frontLine_ = plot_->addGraph();
  frontLine_->setName(tr("Pareto front"));
  frontPoints_ = plot_->addGraph();
  frontPoints_->setLineStyle(QCPGraph::lsNone);
  frontPoints_->removeFromLegend();
  frontLine_->removeFromLegend();
  plot_->legend->setVisible(false);
  plot_->plotLayout()->insertRow(0);
  yTitle_ = new QCPTextElement(plot_, QString(), QFont(font().family(), font().pointSize()));
  yTitle_->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);
  yTitle_->setMargins(QMargins(6, 2, 6, 0));
  plot_->plotLayout()->addElement(0, 0, yTitle_);
  // As many ticks as there is room for: the dock is often short.
  connect(plot_, &QCustomPlot::afterLayout, this, [this] {
    fitAxesToSize(plot_, plot_->xAxis, axisLabel(x_), data_ ? QString::fromStdString(data_->metric_columns[x_]) : QString());
  });
  connect(plot_, &QCustomPlot::mouseMove, this, &SweepScatter::onMove);
  connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
    if (const auto row = rowAt(e->position())) Q_EMIT rowClicked(*row);
  });
  setTheme(*theme_);
}

void SweepScatter::setTheme(const Theme& theme) {
  theme_ = &theme;
  applyPlotTheme(plot_, theme);
  yTitle_->setTextColor(theme.text);
  const QColor muted = mix(theme.mutedText, theme.base, 0.35);
  points_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, muted, mix(muted, theme.base, 0.5), 6));
  points_->setPen(QPen(muted));
  frontLine_->setPen(QPen(theme.accent, 1.5));
  frontPoints_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, theme.accent, theme.accent, 9));
  frontPoints_->setPen(QPen(theme.accent));
  plot_->replot();
}

void SweepScatter::setRows(std::shared_ptr<const sweep_data> sweep, std::size_t xMetric, std::size_t yMetric) {
  data_ = std::move(sweep);
  x_ = xMetric;
  y_ = yMetric;
  redraw();
}

QString SweepScatter::axisLabel(std::size_t metric) const {
  if (!data_ || metric >= data_->metric_columns.size()) return QString();
  const std::string& key = data_->metric_columns[metric];
  QString label = QString::fromStdString(key);
  if (const auto* info = find_metric(key)) {
    if (!info->unit.empty()) label += QStringLiteral(" (%1)").arg(QString::fromUtf8(info->unit.data(), static_cast<int>(info->unit.size())));
    if (info->better == better_when::higher) label += tr(" — higher is better");
    if (info->better == better_when::lower) label += tr(" — lower is better");
  }
  return label;
}

void SweepScatter::redraw() {
  plotted_.clear();
  front_.clear();
  hasFront_ = false;
  QVector<double> xs, ys;
  if (data_ && x_ < data_->metric_columns.size() && y_ < data_->metric_columns.size()) {
    std::vector<std::vector<double>> points;
    for (std::size_t r = 0; r < data_->rows.size(); ++r) {
      const double x = data_->rows[r].metrics[x_], y = data_->rows[r].metrics[y_];
      points.push_back({x, y});
      if (std::isnan(x) || std::isnan(y)) continue;
      plotted_.push_back(r);
      xs << x;
      ys << y;
    }
    const auto ox = metric_objective(data_->metric_columns[x_]);
    const auto oy = metric_objective(data_->metric_columns[y_]);
    hasFront_ = ox && oy && x_ != y_;
    if (hasFront_) front_ = pareto_front({*ox, *oy}, points);
    yTitle_->setText(QStringLiteral("↑ ") + axisLabel(y_));
    // The staircase's corners are the best points both neighbours dominate: with x to maximize
    // the step is taken at the left point's x, with x to minimize at the right point's.
    frontLine_->setLineStyle(ox && ox->dir == direction::maximize ? QCPGraph::lsStepRight : QCPGraph::lsStepLeft);
  }
  points_->setData(xs, ys);
  QVector<double> fx, fy;
  for (std::size_t r : front_) {
    fx << data_->rows[r].metrics[x_];
    fy << data_->rows[r].metrics[y_];
  }
  frontLine_->setData(fx, fy);  // sorts by x
  frontPoints_->setData(fx, fy);
  points_->rescaleAxes();
  // A margin so the extreme points are not cut by the frame; a flat axis gets a unit of room.
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    QCPRange r = axis->range();
    const double pad = r.size() > 0 ? r.size() * 0.06 : std::max(1e-9, std::abs(r.center()) * 0.1 + (r.center() == 0));
    axis->setRange(r.lower - pad, r.upper + pad);
  }
  plot_->replot();
}

QPointF SweepScatter::pixelOf(std::size_t row) const {
  const auto& m = data_->rows[row].metrics;
  return {plot_->xAxis->coordToPixel(m[x_]), plot_->yAxis->coordToPixel(m[y_])};
}

std::optional<std::size_t> SweepScatter::rowAt(const QPointF& pixel) const {
  std::optional<std::size_t> best;
  double bestDistance = pickRadius * pickRadius;
  for (std::size_t r : plotted_) {
    const QPointF d = pixelOf(r) - pixel;
    const double distance = d.x() * d.x() + d.y() * d.y();
    if (distance <= bestDistance) {
      best = r;
      bestDistance = distance;
    }
  }
  return best;
}

QString SweepScatter::tooltipText(std::size_t row) const {
  const sweep_data_row& r = data_->rows[row];
  QString text = tr("<b>config %1</b>").arg(r.index);
  for (const sweep_setting& s : r.config) {
    text += QStringLiteral("<br>%1 = %2").arg(QString::fromStdString(s.name).toHtmlEscaped(),
                                              QString::fromStdString(s.value).toHtmlEscaped());
  }
  if (r.config.empty()) text += tr("<br>(the base run, nothing set)");
  for (std::size_t m : {x_, y_}) {
    const std::string& key = data_->metric_columns[m];
    const auto* info = find_metric(key);
    text += QStringLiteral("<br>%1: <b>%2</b>").arg(QString::fromStdString(key), withUnit(r.metrics[m], info ? info->unit : ""));
  }
  if (std::binary_search(front_.begin(), front_.end(), row)) text += tr("<br>on the Pareto front");
  return text + tr("<br><i>Click: run it as the what-if</i>");
}

void SweepScatter::onMove(QMouseEvent* event) {
  const auto row = rowAt(event->position());
  if (!row) {
    QToolTip::hideText();
    plot_->setCursor(Qt::ArrowCursor);
    return;
  }
  plot_->setCursor(Qt::PointingHandCursor);
  QToolTip::showText(event->globalPosition().toPoint(), tooltipText(*row), plot_);
}

}  // namespace kvscope::ui
