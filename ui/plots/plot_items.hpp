#pragma once
// Items placed across a plot's whole width at a value (thresholds, bands, their captions):
// x in axis-rect ratio, y in plot coordinates. The pressure plot and the what-if's thresholds
// on it make theirs here.
#include "common/qcustomplot_include.hpp"

namespace kvscope::ui {

// A line from the left edge to the right at a value set later (start, end: y).
inline QCPItemLine* makeLevelLine(QCustomPlot* plot, const QString& layer) {
  auto* line = new QCPItemLine(plot);
  line->setLayer(layer);
  for (auto* pos : {line->start, line->end}) {
    pos->setTypeX(QCPItemPosition::ptAxisRectRatio);
    pos->setTypeY(QCPItemPosition::ptPlotCoords);
  }
  return line;
}

// A band across the plot between two values set later (topLeft, bottomRight: y); no outline.
inline QCPItemRect* makeLevelBand(QCustomPlot* plot, const QString& layer) {
  auto* band = new QCPItemRect(plot);
  band->setLayer(layer);
  for (auto* pos : {band->topLeft, band->bottomRight}) {
    pos->setTypeX(QCPItemPosition::ptAxisRectRatio);
    pos->setTypeY(QCPItemPosition::ptPlotCoords);
  }
  band->setPen(Qt::NoPen);
  return band;
}

// The plot's right-hand axis as the place for captions at values (thresholds, SLOs): beside the
// data, never over a curve. It follows the left axis' range and scale; the caller sets its ticks
// (one per caption) on the ticker returned, and its colours with the theme (styleCaptionAxis).
inline QSharedPointer<QCPAxisTickerText> makeCaptionAxis(QCustomPlot* plot) {
  QCPAxis* right = plot->yAxis2;
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  right->setTicker(ticker);
  right->setVisible(true);
  right->setTickLabels(true);
  right->setSubTicks(false);
  right->setTickLengthIn(0);
  right->setTickLengthOut(4);
  right->grid()->setVisible(false);
  right->setScaleType(plot->yAxis->scaleType());
  right->setRange(plot->yAxis->range());
  QObject::connect(plot->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), right,
                   qOverload<const QCPRange&>(&QCPAxis::setRange));
  return ticker;
}

// A caption axis in the theme's colours: no axis line of its own, only the captions and their ticks.
inline void styleCaptionAxis(QCPAxis* right, const QColor& text, const QColor& ticks) {
  right->setBasePen(Qt::NoPen);
  right->setTickPen(QPen(ticks, 1));
  right->setTickLabelColor(text);
}

// A caption at a value, anchored by `align`, on the given layer.
inline QCPItemText* makeLevelText(QCustomPlot* plot, const QString& layer, Qt::Alignment align) {
  auto* text = new QCPItemText(plot);
  text->setLayer(layer);
  text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  text->position->setTypeY(QCPItemPosition::ptPlotCoords);
  text->setPositionAlignment(align);
  text->setPadding(QMargins(2, 0, 4, 1));
  return text;
}

}  // namespace kvscope::ui
