#pragma once
// Colours shared by every widget, in a light and a dark variant. Level colours are the
// Okabe–Ito colour-blind-safe set, ordered from cool (fp16, roomy) to hot (q4, compact).
#include <QColor>
#include <QPalette>
#include <QString>

#include <array>
#include <cstdint>

#include "memory/frame_map.hpp"
#include "outcome/slo_misses.hpp"
#include "quant/level.hpp"

class QCustomPlot;

namespace kvscope::ui {

inline constexpr int sequencePaletteSize = 64;

struct Theme {
  bool dark = false;
  QColor window, base, text, mutedText, grid, accent;
  QColor freeFrame;    // a frame nobody uses
  QColor cachedBlock;  // freed block kept for prefix-cache hits
  QColor mapBackground;
  std::array<QColor, kv_level_count> level;      // indexed by ordinal(precision)
  std::array<QColor, kv_level_count> levelTint;  // faint version for plot backgrounds
  QColor scales;                    // quantization scale bytes
  QColor usageLine, ewmaLine, bandFill;

  QColor levelColor(precision p) const { return level[static_cast<std::size_t>(ordinal(p))]; }
  // A stable, distinct colour per sequence (golden-angle hues).
  QColor sequenceColor(sequence_id id) const;
  // The colour of an SLO miss cause wherever it is drawn, chosen by its key, so it stays the
  // same when causes are added; a cause without one of its own gets a hue from its key.
  QColor causeColor(miss_cause cause) const;
  QPalette palette() const;
};

const Theme& lightTheme();
const Theme& darkTheme();

// Linear mix: t = 0 gives a, t = 1 gives b.
QColor mix(const QColor& a, const QColor& b, double t);

// A level as the GUI names it everywhere: its tag, "fp16", "q8", "fp8" or "q4".
QString levelName(precision p);

// Background, axes, grid and legend of a QCustomPlot in the theme's colours (1 px pens).
void applyPlotTheme(QCustomPlot* plot, const Theme& t);

}  // namespace kvscope::ui
