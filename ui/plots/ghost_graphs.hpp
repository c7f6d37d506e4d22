#pragma once
// A what-if run drawn over a live plot: faded, dashed copies of some of its lines, one graph
// each, filled from the what-if's trace (a metrics_history) or cleared.
#include <QColor>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

#include "common/level_legend.hpp"
#include "run/metrics_history.hpp"

class QCustomPlot;
class QCPGraph;

namespace kvscope::ui {

class GhostGraphs {
 public:
  // y of line `i` at a step.
  using Value = std::function<double(const step_metrics& m, std::size_t line)>;

  // Adds `lines` graphs to `plot`, empty and out of its legend; with `halos`, each drawn over a
  // wider line of the background colour, so it reads over filled areas of any colour.
  GhostGraphs(QCustomPlot* plot, std::size_t lines, bool halos = false);
  // Line i's colour (faded here) and name.
  void setStyle(std::size_t line, const QColor& color, const QString& name, double width = 1.5);
  // The halos' colour: the plot's background (no effect without halos).
  void setHaloColor(const QColor& background);
  // Draws every line from `trace`'s points (null clears); the caller replots.
  void show(std::shared_ptr<const metrics_history> trace, const Value& value);
  // Refills from the trace shown (after a unit change, say).
  void refresh(const Value& value);
  bool shown() const { return trace_ != nullptr; }
  // Points drawn (0 when nothing is shown).
  std::size_t pointCount() const;
  // Appends line i's legend entry (`text`, a dashed swatch) to `entries` while it is drawn.
  void addLegendEntry(QVector<ColorLegend::Entry>& entries, std::size_t line, const QString& text,
                      const QString& toolTip) const;
  QCPGraph* graph(std::size_t line) const { return graphs_[line]; }
  // Line i's halo, or null without halos.
  QCPGraph* halo(std::size_t line) const { return halos_.empty() ? nullptr : halos_[line]; }

 private:
  std::vector<QCPGraph*> graphs_;
  std::vector<QCPGraph*> halos_;  // one under each line, or none
  std::shared_ptr<const metrics_history> trace_;
};

}  // namespace kvscope::ui
