#pragma once
// QCustomPlot plus the small layout helper the plots share.
#include <qcustomplot.h>

namespace kvscope::ui {

// Moves the legend out of the data area into a row of its own above the axis rect, laid out
// horizontally, so it never hides the newest data.
inline void placeLegendAbove(QCustomPlot* plot) {
  plot->legend->setVisible(true);
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(0, 0, plot->legend);
  plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  plot->legend->setWrap(8);
  plot->legend->setMargins(QMargins(4, 1, 4, 1));
  plot->legend->setRowSpacing(0);
  plot->legend->setColumnSpacing(10);
  plot->plotLayout()->setRowStretchFactor(0, 0.001);
  plot->plotLayout()->setRowSpacing(2);
}

}  // namespace kvscope::ui
