#include "plots/transition_marks.hpp"

#include <QObject>

#include <algorithm>

namespace kvscope::ui {

std::vector<TransitionCluster> clusterTransitions(const std::deque<level_transition>& transitions, double span) {
  std::vector<TransitionCluster> out;
  double ewmaSum = 0;
  const auto close = [&] {
    TransitionCluster& c = out.back();
    c.time = (c.first + c.last) / 2;
    c.ewma = ewmaSum / c.count();
  };
  for (const level_transition& t : transitions) {
    if (out.empty() || t.sim_time_s - out.back().first >= span || span <= 0) {
      if (!out.empty()) close();
      out.push_back({t.sim_time_s, t.sim_time_s, 0, 0, 0, 0, t.from, t.to});
      ewmaSum = 0;
    }
    TransitionCluster& c = out.back();
    c.last = t.sim_time_s;
    c.to = t.to;
    (ordinal(t.to) > ordinal(t.from) ? c.up : c.down) += 1;
    ewmaSum += t.ewma;
  }
  if (!out.empty()) close();
  return out;
}

QString describeCluster(const TransitionCluster& c) {
  const auto name = levelName;
  if (c.count() == 1) {
    return QObject::tr("Level %1: %2 → %3 at t = %4 s (EWMA %5)")
        .arg(c.up ? QObject::tr("up") : QObject::tr("down"), name(c.from), name(c.to))
        .arg(c.first, 0, 'f', 2)
        .arg(c.ewma, 0, 'f', 3);
  }
  return QObject::tr("%1 level changes from t = %2 to %3 s: %4 up, %5 down (%6 → %7 overall). "
                     "Zoom in to see each.")
      .arg(c.count())
      .arg(c.first, 0, 'f', 2)
      .arg(c.last, 0, 'f', 2)
      .arg(c.up)
      .arg(c.down)
      .arg(name(c.from), name(c.to));
}

QPointF clusterMarkCentre(QPointF onCurve, const QRectF& area) {
  constexpr double lift = ClusterMarks::diameter / 2 + 8;  // pixels from the curve to the centre
  const bool above = onCurve.y() - lift - ClusterMarks::diameter / 2 >= area.top();
  return {onCurve.x(), onCurve.y() + (above ? -lift : lift)};
}

ClusterMarks::ClusterMarks(QCustomPlot* plot) : QCPLayerable(plot, QStringLiteral("captions")) {}

void ClusterMarks::draw(QCPPainter* painter) {
  if (!clusters_) return;
  QCPAxis* x = mParentPlot->xAxis;
  QCPAxis* y = mParentPlot->yAxis;
  QFont font = mParentPlot->font();
  font.setPointSizeF(font.pointSizeF() * 0.8);
  font.setBold(true);
  painter->setFont(font);
  for (const TransitionCluster& c : *clusters_) {
    if (c.count() < 2 || c.time < x->range().lower || c.time > x->range().upper) continue;
    const QPointF onCurve(x->coordToPixel(c.time), y->coordToPixel(c.ewma));
    const QPointF at = clusterMarkCentre(onCurve, mParentPlot->axisRect()->rect());
    const QString count = QString::number(c.count());
    // A pill as wide as the count needs: 3 digits do not fit a 15 px disc.
    const double width = std::max(diameter, QFontMetricsF(font).horizontalAdvance(count) + 6);
    const QRectF pill(at.x() - width / 2, at.y() - diameter / 2, width, diameter);
    painter->setPen(QPen(theme_->text, 1));
    painter->drawLine(onCurve, QPointF(at.x(), at.y() + (at.y() < onCurve.y() ? diameter / 2 : -diameter / 2)));
    painter->setBrush(theme_->accent);
    painter->drawRoundedRect(pill, diameter / 2, diameter / 2);
    painter->setPen(Qt::white);
    painter->drawText(pill, Qt::AlignCenter, count);
  }
}

}  // namespace kvscope::ui
