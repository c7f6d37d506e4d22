#pragma once
// QCustomPlot plus the small helpers the plots share.
#include <qcustomplot.h>

#include <QFontMetrics>

#include <algorithm>
#include <cstddef>

#include "run/metrics_history.hpp"

namespace kvscope::ui {

// Settings for a plot redrawn many times a second next to the engine (see gui_bench):
// a replot only marks the widget dirty (QCustomPlot's default repaints the whole window at
// once, so two plots meant two window repaints per frame), and lines are not antialiased
// while dragging.
inline void prepareLivePlot(QCustomPlot* plot) {
  plot->setPlottingHint(QCP::phImmediateRefresh, false);
  plot->setNoAntialiasingOnDrag(true);
}

// Puts the legend in a row of its own above the axis rect, laid out horizontally, so it never
// hides the newest data; or takes it out of the plot. The window shows live plots without it,
// under a ColorLegend of their own (QCustomPlot measures its legend's text on every replot),
// and puts it in only to export them.
inline void showLegendAbove(QCustomPlot* plot, bool shown) {
  QCPLayoutGrid* grid = plot->plotLayout();
  QCPLegend* legend = plot->legend;
  if (shown == (legend->layout() == grid)) return;
  if (!shown) {
    grid->take(legend);
    grid->simplify();  // drops the row it leaves empty
    legend->setVisible(false);
    return;
  }
  if (legend->layout()) legend->layout()->take(legend);  // at first: the axis rect's inset
  grid->insertRow(0);
  grid->addElement(0, 0, legend);
  legend->setVisible(true);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  legend->setWrap(8);
  legend->setMargins(QMargins(4, 1, 4, 1));
  legend->setRowSpacing(0);
  legend->setColumnSpacing(10);
  grid->setRowStretchFactor(0, 0.001);
  grid->setRowSpacing(2);
}

// Graphs that mirror a metrics_history (appending each new step) hold more points than it
// once it has thinned its old steps; past this many more, they reload from it, so they stay
// bounded over a long run (a reload is a few ms for the ~70,000 points it keeps).
inline bool graphsOutgrew(std::size_t graphPoints, const metrics_history& history) {
  return graphPoints > history.point_count() + (std::size_t{1} << 15);
}

// As many ticks as the axis rect has room for (about one per 90 px across, per 34 px up), so
// tick labels never run into each other on a small plot; and the axis label `full` where it
// fits along the axis, else `brief`. Connected to QCustomPlot::afterLayout, which comes
// before the ticks of the same replot are made.
inline void fitAxesToSize(QCustomPlot* plot, QCPAxis* axis, const QString& full, const QString& brief) {
  const QRect r = plot->axisRect()->rect();
  plot->xAxis->ticker()->setTickCount(std::clamp(r.width() / 90, 2, 8));
  plot->yAxis->ticker()->setTickCount(std::clamp(r.height() / 34, 2, 8));
  const bool vertical = axis->orientation() == Qt::Vertical;
  const int room = vertical ? r.height() : r.width();
  const QString label = QFontMetrics(axis->labelFont()).horizontalAdvance(full) + 8 <= room ? full : brief;
  if (axis->label() != label) axis->setLabel(label);
}

// A legend out of the way while the plot runs live: see showLegendAbove.
inline void hideLegend(QCustomPlot* plot) {
  if (QCPLayout* layout = plot->legend->layout(); layout && layout != plot->plotLayout()) {
    layout->take(plot->legend);
  }
  showLegendAbove(plot, false);
  plot->legend->setVisible(false);
}

}  // namespace kvscope::ui
