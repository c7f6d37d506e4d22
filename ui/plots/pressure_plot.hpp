#pragma once
// Pressure over time: raw KV cache usage and the policy's EWMA, the q8/q4 threshold lines (and
// q3's, when the policy has a q3 threshold) with the hysteresis band below each (where a level is held although the EWMA is under its
// threshold), the level as a coloured background, and a marker at every level change (or,
// where changes crowd together at this zoom, one marker with their count).
// Live mode scrolls a window over the newest data; dragging or zooming browses the history.
#include <QWidget>

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "run/metrics_history.hpp"
#include "common/meta_types.hpp"
#include "common/theme.hpp"
#include "plots/transition_marks.hpp"

class QCustomPlot;
class QCPGraph;
class QCPItemLine;
class QCPItemRect;
class QCPItemText;
class QCheckBox;
class QComboBox;
class QLayout;

namespace kvscope::ui {

class ClusterMarks;
class GhostGraphs;
class WhatIfThresholds;
class LevelBackground;
class ColorLegend;

class PressurePlot : public QWidget {
  Q_OBJECT
 public:
  explicit PressurePlot(QWidget* parent = nullptr);
  ~PressurePlot() override;

  void setTheme(const Theme& theme);
  QCustomPlot* customPlot() const { return plot_; }
  // The steps to draw: the bridge's history, which it fills before appendMetrics is called.
  void setHistory(const metrics_history* history);
  const policy_config& policy() const { return policy_; }
  bool isLive() const { return live_; }
  // The time axis' current range (simulated seconds).
  std::pair<double, double> timeRange() const;
  // Where the threshold lines and bands are drawn now (plot coordinates), for tests.
  // The controller's thresholds are drawn (the ewma family; the others have none).
  bool thresholdsShown() const;
  double q8LineValue() const;
  double q4BandBottom() const;
  bool q3ThresholdShown() const;  // only with a q3 threshold
  double q3LineValue() const;
  // The thresholds' captions beside the plot, bottom to top (value, text): none without a controller.
  QList<QPair<double, QString>> thresholdCaptions() const;
  // The level-change markers as drawn now (nearby changes merged at this zoom), and what the
  // tooltip at a pixel of the plot says ("" away from any marker).
  const std::vector<TransitionCluster>& markerClusters() const { return clusters_; }
  QString markerToolTip(const QPointF& pixel) const;
  // A what-if run's EWMA as a dashed, faded line over the whole run (null removes it), and
  // the what-if config's thresholds beside it (whatif_thresholds.hpp).
  void setGhost(std::shared_ptr<const metrics_history> trace, std::optional<policy_config> whatIf = std::nullopt);
  const WhatIfThresholds& whatIfThresholds() const { return *whatIfThresholds_; }
  // Points of the ghost line (0 when none is drawn).
  std::size_t ghostPoints() const;

 public Q_SLOTS:
  // New steps, each once (from EngineBridge::metricsArrived), already in the history.
  void appendMetrics(const kvscope::ui::MetricsPtr& metrics);
  // Moves the lines and bands at once (the slider's value, before the engine confirms it).
  void setPolicy(const kvscope::policy_config& config);
  void clearHistory();
  void setLive(bool live);
  void showAll();
  // Rings the newest step's EWMA point (a tour marks the moment its step talks about).
  void setMarkLatest(bool mark);

 Q_SIGNALS:
  void timeRangeChanged(double lower, double upper);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QLayout* buildBar();  // live, window, whole run, level legend
  void buildPlot();
  double clusterSpan() const;  // seconds a marker covers at the current zoom
  void reloadGraphs();
  void updateMarkers();
  void updateLatest();
  void updateRange();
  void placeThresholds();
  void placeCaptions();  // the thresholds' captions that fit (pixels: after a layout)
  QString fullYLabel() const;

  QCustomPlot* plot_ = nullptr;
  QCPGraph* usage_ = nullptr;
  QCPGraph* ewma_ = nullptr;
  QCPGraph* compress_ = nullptr;
  QCPGraph* relax_ = nullptr;
  QCPGraph* latest_ = nullptr;  // one point: the newest EWMA, when marked
  bool markLatest_ = false;
  std::array<QCPItemLine*, 3> thresholdLines_{};  // q8, q4, q3
  std::array<QCPItemRect*, 3> thresholdBands_{};  // below each: its hysteresis band
  QSharedPointer<QCPAxisTickerText> captions_;  // the thresholds', on the right-hand axis
  LevelBackground* levels_ = nullptr;
  ClusterMarks* clusterMarks_ = nullptr;
  std::unique_ptr<GhostGraphs> ghost_;
  std::unique_ptr<WhatIfThresholds> whatIfThresholds_;
  std::optional<policy_config> whatIfPolicy_;
  std::vector<TransitionCluster> clusters_;
  double clusterSpan_ = 0;
  QCheckBox* liveBox_ = nullptr;
  QComboBox* windowBox_ = nullptr;
  ColorLegend* legend_ = nullptr;        // the levels (background colours)
  ColorLegend* seriesLegend_ = nullptr;  // the lines and markers

  const Theme* theme_ = &lightTheme();
  const metrics_history* history_ = nullptr;
  std::size_t graphPoints_ = 0;  // points in the graphs: the history's, plus those appended since
  policy_config policy_{};
  std::uint64_t markersShown_ = 0;
  bool live_ = true;
  double window_ = 30;
};

}  // namespace kvscope::ui
