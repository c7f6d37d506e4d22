#pragma once
// Include QCustomPlot through this header. kvscope_ui builds with QT_NO_SIGNALS_SLOTS_KEYWORDS
// because core's frame_info has a member named `slots`, which Qt's `slots` macro would erase
// (and QT_NO_EMIT because TBB uses `emit`). qcustomplot.h still declares its signals with the
// `signals` keyword, so it gets that one macro, for its own header only.
#ifndef signals
#define signals Q_SIGNALS
#define KVSCOPE_UNDEF_SIGNALS
#endif
#include <qcustomplot.h>
#ifdef KVSCOPE_UNDEF_SIGNALS
#undef signals
#undef KVSCOPE_UNDEF_SIGNALS
#endif

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
