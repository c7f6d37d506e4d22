#pragma once
// Level-change markers that stay readable on a long run: transitions closer together on screen
// than a marker's width are drawn as one round marker with their count in it (its tooltip
// says how many went up and down, and when), so hundreds of changes in a flapping stretch
// read as a number instead of a blob. Zooming in splits a cluster again.
#include <deque>
#include <vector>

#include "common/qcustomplot_include.hpp"
#include "common/theme.hpp"

namespace kvscope::ui {

struct TransitionCluster {
  double first = 0, last = 0;  // simulated time of its first and last change
  double time = 0, ewma = 0;   // where its marker sits: mid-time, mean EWMA
  int up = 0, down = 0;        // changes to a more / less compact level
  precision from = precision::fp16, to = precision::fp16;  // before the first, after the last
  int count() const { return up + down; }
};

// Groups time-ordered transitions: each cluster takes the ones less than `span` seconds after
// its first. `span` <= 0 keeps every transition on its own. Appending transitions never
// changes the clusters before the last one, so live markers do not jump.
std::vector<TransitionCluster> clusterTransitions(const std::deque<level_transition>& transitions, double span);

// What a marker's tooltip says.
QString describeCluster(const TransitionCluster& cluster);

// Where a cluster's marker goes when its changes happened at `onCurve` (pixels) in `area`: above
// the curve, tied to it by a short line, or below where the top leaves no room. On the curve it
// covered the EWMA exactly where the level changed.
QPointF clusterMarkCentre(QPointF onCurve, const QRectF& area);

// Paints the clusters of more than one change: a disc in the theme's accent with the count.
// (Single changes are the plot's up and down triangle graphs, which its legend names.)
class ClusterMarks : public QCPLayerable {
 public:
  explicit ClusterMarks(QCustomPlot* plot);
  void setTheme(const Theme* theme) { theme_ = theme; }
  void setClusters(const std::vector<TransitionCluster>* clusters) { clusters_ = clusters; }
  static constexpr double diameter = 15;  // pixels; also the clustering distance

 protected:
  void applyDefaultAntialiasingHint(QCPPainter* painter) const override { painter->setAntialiasing(true); }
  QRect clipRect() const override { return mParentPlot->axisRect()->rect(); }
  void draw(QCPPainter* painter) override;

 private:
  const std::vector<TransitionCluster>* clusters_ = nullptr;
  const Theme* theme_ = &lightTheme();
};

}  // namespace kvscope::ui
