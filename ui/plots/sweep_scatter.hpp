#pragma once
// A sweep's rows as a scatter of two metrics: every row a point, the Pareto front of the two
// (each axis's better direction from the metric table, the front from core's pareto_front)
// highlighted and joined by the staircase that bounds what it dominates. Hovering a point
// shows its config and the two values; clicking one emits rowClicked.
#include <QWidget>

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "sweep/sweep_data.hpp"
#include "common/theme.hpp"

class QCustomPlot;
class QCPGraph;
class QCPTextElement;
class QMouseEvent;

namespace kvscope::ui {

class SweepScatter : public QWidget {
  Q_OBJECT
 public:
  explicit SweepScatter(QWidget* parent = nullptr);

  // The rows to draw (null: none) and the metric columns on each axis (positions in
  // data->metric_columns).
  void setRows(std::shared_ptr<const sweep_data> sweep, std::size_t xMetric, std::size_t yMetric);
  void setTheme(const Theme& theme);

  // Rows drawn (those with both values measured), and those on the front: positions in
  // data->rows, ascending.
  const std::vector<std::size_t>& plottedRows() const { return plotted_; }
  const std::vector<std::size_t>& frontRows() const { return front_; }
  // False when an axis's metric has no better direction (then there is no front).
  bool hasFront() const { return hasFront_; }
  // Where row `row` is drawn, in widget pixels of plot(); the row drawn nearest `pixel` within
  // a few pixels, or nullopt.
  QPointF pixelOf(std::size_t row) const;
  std::optional<std::size_t> rowAt(const QPointF& pixel) const;
  // What hovering row `row` shows: its index, config and the two values.
  QString tooltipText(std::size_t row) const;
  QCustomPlot* plot() const { return plot_; }

 Q_SIGNALS:
  void rowClicked(std::size_t row);

 private:
  void redraw();
  void onMove(QMouseEvent* event);
  QString axisLabel(std::size_t metric) const;

  QCustomPlot* plot_ = nullptr;
  QCPGraph* points_ = nullptr;
  QCPGraph* frontLine_ = nullptr;
  QCPGraph* frontPoints_ = nullptr;
  QCPTextElement* yTitle_ = nullptr;  // the y metric, across the top: a short plot has no room along its side
  std::shared_ptr<const sweep_data> data_;
  std::size_t x_ = 0, y_ = 0;
  std::vector<std::size_t> plotted_, front_;
  bool hasFront_ = false;
  const Theme* theme_ = &lightTheme();
};

}  // namespace kvscope::ui
