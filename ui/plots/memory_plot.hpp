#pragma once
// Memory per precision level: stacked bytes over time (QCustomPlot) and the current breakdown
// as a donut (Qt Charts), with the bytes actually used including quantization scales and the
// saving against holding the same blocks all in fp16.
#include <QTextDocument>
#include <QWidget>

#include <array>
#include <memory>

#include "run/metrics_history.hpp"
#include "common/meta_types.hpp"
#include "common/theme.hpp"

class QCustomPlot;
class QCPGraph;
class QCPItemLine;
class QCPItemText;
class QLabel;
class QTimer;
class QChartView;
class QPieSeries;
class QPieSlice;

namespace kvscope::ui {

class ColorLegend;
class GhostGraphs;
class LiveLabel;

// What the summary line says, computed from one step's metrics.
struct MemoryBreakdown {
  double payload = 0;         // bytes of block data in use, all levels
  double scales = 0;          // quantization scales
  double effective = 0;       // payload + scales: what the cache really holds
  double cached = 0;          // of effective: blocks only the prefix cache keeps (evictable)
  double fp16Equivalent = 0;  // the same blocks held in fp16
  double saving = 0;          // 1 - effective / fp16Equivalent (0 when nothing is cached)
  static MemoryBreakdown of(const step_metrics& m);
};

class MemoryPlot : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryPlot(QWidget* parent = nullptr);
  ~MemoryPlot() override;
  void setTheme(const Theme& theme);
  QCustomPlot* customPlot() const { return plot_; }
  QString summaryText() const;
  // The steps to draw: the bridge's history, which it fills before appendMetrics is called.
  void setHistory(const metrics_history* history);
  // A what-if run's stacked levels as dashed outlines over the whole run (null removes them).
  void setGhost(std::shared_ptr<const metrics_history> trace);
  std::size_t ghostPoints() const;
  const GhostGraphs& ghost() const { return *ghost_; }

 public Q_SLOTS:
  void appendMetrics(const kvscope::ui::MetricsPtr& metrics);
  // The donut, the summary and the budget line follow the latest step (the window calls this
  // a few times a second: see MainWindow::onSnapshot).
  void setSnapshot(const kvscope::ui::SnapshotPtr& snapshot);
  void clearHistory();
  // Follows the pressure plot's time axis so both show the same moment.
  void setTimeRange(double lower, double upper);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  QChartView* buildDonut();  // the breakdown now, beside the plot
  void reloadGraphs();
  void requestReplot();
  void appendPoint(const step_metrics& m);
  double stackedTop(const step_metrics& m, std::size_t layer) const;  // in axis units
  void updateDonut(const step_metrics& m, bool exact);
  void setSummary(const MemoryBreakdown& b);
  void fitSummary();  // the whole summary, its short form or none: what fits below the plot

  QCustomPlot* plot_ = nullptr;
  ColorLegend* legend_ = nullptr;  // instead of the plot's own while live (exports put it back)
  std::array<QCPGraph*, kv_level_count + 1> layers_{};  // fp16, q8, fp8, q4, q3, scales — cumulative
  QCPGraph* inUse_ = nullptr;   // the stack's top less the cached prefix blocks: a line
  QCPGraph* cached_ = nullptr;  // the stack's top, filled down to inUse_
  std::unique_ptr<GhostGraphs> ghost_;  // the same five, of a what-if run
  QCPItemLine* budgetLine_ = nullptr;
  QCPItemText* budgetText_ = nullptr;
  QChartView* donutView_ = nullptr;
  QPieSeries* donut_ = nullptr;
  std::array<QPieSlice*, kv_level_count + 2> slices_{};  // fp16, q8, fp8, q4, q3, scales, free
  LiveLabel* summary_ = nullptr;
  QString fullSummary_, briefSummary_;
  QTextDocument measure_;  // lays out the summaries to see which fits
  QTimer* replotTimer_ = nullptr;
  const Theme* theme_ = &lightTheme();
  const metrics_history* history_ = nullptr;
  std::size_t graphPoints_ = 0;  // points in the graphs: the history's, plus those appended since
  double budget_ = 0;
  double unit_ = 1024.0 * 1024.0;  // bytes per axis unit: MiB or GiB

};

}  // namespace kvscope::ui
