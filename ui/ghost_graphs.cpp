#include "ghost_graphs.hpp"

#include "qcustomplot_include.hpp"

namespace kvscope::ui {

GhostGraphs::GhostGraphs(QCustomPlot* plot, std::size_t lines) {
  for (std::size_t i = 0; i < lines; ++i) {
    QCPGraph* g = plot->addGraph();
    g->removeFromLegend();
    g->setAdaptiveSampling(true);
    g->setVisible(false);
    graphs_.push_back(g);
  }
}

void GhostGraphs::setStyle(std::size_t line, const QColor& color, const QString& name, double width) {
  QColor faded = color;
  faded.setAlphaF(0.75);
  graphs_[line]->setPen(QPen(faded, width, Qt::DashLine));
  graphs_[line]->setName(name);
}

void GhostGraphs::show(std::shared_ptr<const metrics_history> trace, const Value& value) {
  trace_ = std::move(trace);
  refresh(value);
}

void GhostGraphs::refresh(const Value& value) {
  for (std::size_t i = 0; i < graphs_.size(); ++i) {
    QVector<QCPGraphData> points;
    if (trace_) {
      points.reserve(static_cast<qsizetype>(trace_->point_count()));
      trace_->for_each_point([&](const step_metrics& m) { points.push_back({m.sim_time_s, value(m, i)}); });
    }
    graphs_[i]->data()->set(points, true);
    graphs_[i]->setVisible(trace_ != nullptr);
  }
}

std::size_t GhostGraphs::pointCount() const {
  return graphs_.empty() || !trace_ ? 0 : static_cast<std::size_t>(graphs_.front()->dataCount());
}

void GhostGraphs::addLegendEntry(QVector<ColorLegend::Entry>& entries, std::size_t line, const QString& text,
                                 const QString& toolTip) const {
  if (!trace_) return;
  const QPen pen = graphs_[line]->pen();
  entries.push_back({pen.color(), text, toolTip, false, {}, ColorLegend::Swatch::line, Qt::DashLine, pen.widthF()});
}

}  // namespace kvscope::ui
