#pragma once
// The latency panel's two plots (QCustomPlot): TTFT and TPOT over simulated time, each a p50
// line in a p50–p99 band, on a log axis in ms with the SLOs as dashed lines; and below,
// goodput per window (requests meeting the SLOs per second) with the queue length (requests
// waiting) on a second axis. A what-if's whole run and the current config's whole run can be
// drawn over them: their p99 lines and goodput, dashed and dotted. The "why missed" view puts
// MissChart (SLO misses per window by cause) in the latency plot's place, over the same goodput
// and queue, so a burst of misses lines up with the queue that caused it.
#include <QSharedPointer>
#include <QStringList>
#include <QWidget>

#include <array>
#include <cstddef>

#include "engine/step_metrics.hpp"
#include "outcome/latency_series.hpp"
#include "common/theme.hpp"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPAxisTickerText;

namespace kvscope::ui {

class ColorLegend;
class MissChart;

class LatencyCharts : public QWidget {
  Q_OBJECT
 public:
  enum Metric { ttft = 0, tpot = 1 };
  enum Ghost { whatIf = 0, currentRun = 1 };
  enum View { latencyView, missView };

  explicit LatencyCharts(QWidget* parent = nullptr);
  void setTheme(const Theme& theme);
  // SLO lines for the limits given (none drawn for the others).
  void setSlo(const slo_spec& slo);
  // The live run's windows; the caller replots.
  void showSeries(const latency_series& series);
  // A whole run drawn over the live one (null clears it).
  void showGhost(Ghost ghost, const latency_series* series);
  void appendQueue(const step_metrics& m);
  void clearQueue();
  std::size_t queuePoints() const;
  // Both plots show [0, end] simulated seconds, and fit their value axes to what they hold.
  void fitRanges(double end_s);
  void replot();
  // Which plot is shown above goodput and the queue.
  void setView(View view);
  View view() const { return view_; }

  QCustomPlot* latencyPlot() const { return latency_; }
  QCustomPlot* servicePlot() const { return service_; }
  QCPGraph* p50Graph(Metric m) const { return p50_[m]; }
  QCPGraph* p99Graph(Metric m) const { return p99_[m]; }
  QCPGraph* goodputGraph() const { return goodput_; }
  QCPGraph* queueGraph() const { return queue_; }
  QCPGraph* ghostGraph(Ghost g, Metric m) const { return ghostLatency_[g][m]; }
  // Where metric m's SLO line is drawn, in ms (NaN when there is none).
  double sloLineMs(Metric m) const;
  // The SLOs' captions beside the plot (on its right-hand axis), bottom to top.
  QStringList sloCaptions() const;
  MissChart* missChart() const { return misses_; }

 Q_SIGNALS:
  void viewChanged(kvscope::ui::LatencyCharts::View view);

 private:
  void buildLatencyPlot();
  void buildServicePlot();
  void updateLegend();

  QCustomPlot* latency_ = nullptr;
  QCustomPlot* service_ = nullptr;
  ColorLegend* legend_ = nullptr;
  MissChart* misses_ = nullptr;
  View view_ = latencyView;
  std::array<QCPGraph*, 2> p50_{}, p99_{};
  std::array<QCPItemStraightLine*, 2> sloLine_{};
  QSharedPointer<QCPAxisTickerText> sloCaptions_;  // on the right-hand axis
  std::array<std::array<QCPGraph*, 2>, 2> ghostLatency_{};  // [ghost][metric]: p99
  std::array<QCPGraph*, 2> ghostGoodput_{};
  std::array<bool, 2> ghostShown_{};
  QCPGraph* goodput_ = nullptr;
  QCPGraph* queue_ = nullptr;
  double queueMax_ = 0;
  const Theme* theme_ = &lightTheme();
};

}  // namespace kvscope::ui
