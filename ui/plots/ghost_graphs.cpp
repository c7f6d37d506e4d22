#include "plots/ghost_graphs.hpp"

#include "common/qcustomplot_include.hpp"

namespace kvscope::ui {

GhostGraphs::GhostGraphs(QCustomPlot* plot, std::size_t lines, bool halos) {
  for (std::size_t i = 0; i < lines; ++i) {
    if (halos) {  // added first: drawn under its line
      QCPGraph* h = plot->addGraph();
      h->removeFromLegend();
      h->setAdaptiveSampling(true);
      h->setVisible(false);
      halos_.push_back(h);
    }
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
  if (!halos_.empty()) {
    QPen halo = halos_[line]->pen();
    halo.setWidthF(width + 3);
    halos_[line]->setPen(halo);
  }
}

void GhostGraphs::setHaloColor(const QColor& background) {
  QColor veil = background;
  veil.setAlphaF(0.85f);
  for (QCPGraph* h : halos_) h->setPen(QPen(veil, h->pen().widthF(), Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
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
    if (!halos_.empty()) {
      halos_[i]->data()->set(points, true);
      halos_[i]->setVisible(trace_ != nullptr);
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
