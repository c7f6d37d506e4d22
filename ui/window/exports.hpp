#pragma once
// The window's file exports, apart from its layout code. Everything is written atomically
// (temporary file in the same directory, then renamed over the target).
#include <QString>

#include "run/metrics_history.hpp"

class QCustomPlot;

namespace kvscope::ui {

// A plot as .png (2× resolution) or .pdf, chosen by the extension; false with a message
// naming the file otherwise.
bool exportPlotFile(QCustomPlot* plot, const QString& path, QString* error);

// Per-step metrics as core's CSV (the columns `kvscope-cli simulate --metrics` writes): every
// step when the history holds the whole run, else its newest steps in full, and `note` says
// how many were left out. False with a message naming the file on failure.
bool exportMetricsCsv(const metrics_history& history, const QString& path, QString* error,
                      QString* note = nullptr);

}  // namespace kvscope::ui
