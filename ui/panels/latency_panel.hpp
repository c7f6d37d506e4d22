#pragma once
// The latency panel: what the run costs the people served, over simulated time. TTFT and TPOT
// (p50 in a p50–p99 band, per window of finish times), the SLO lines, goodput and the queue
// (LatencyCharts), or SLO misses by cause in the "why missed" view; a line of whole-run figures
// (or misses); and a "Requests…" button opening the per-request table. Its numbers come from
// core's latency_series over the request records the snapshots carry; a what-if's whole run
// and the current config's are drawn as ghosts.
#include <QWidget>

#include <memory>

#include "jobs/background_run.hpp"
#include "common/meta_types.hpp"
#include "outcome/latency_series.hpp"
#include "run/metrics_history.hpp"
#include "common/theme.hpp"

class QPushButton;
class QToolButton;
class QTimer;

namespace kvscope::ui {

class LatencyCharts;
class LiveLabel;
class RequestTableDialog;

class LatencyPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LatencyPanel(QWidget* parent = nullptr);
  ~LatencyPanel() override;
  void setTheme(const Theme& theme);
  LatencyCharts* charts() const { return charts_; }
  // Checked: the charts show why requests missed (LatencyCharts::missView) instead of latency.
  QToolButton* whyMissedButton() const { return whyButton_; }
  // The live run's series as last drawn (windows of the run so far).
  const latency_series& series() const { return series_; }
  // Finished requests taken from the snapshots so far.
  std::size_t finishedRequests() const { return builder_.finished(); }
  QString summaryText() const;
  // The steps to draw the queue from: the bridge's history (as MemoryPlot::setHistory).
  void setHistory(const metrics_history* history);
  // The what-if's whole run and the current config's, drawn as ghosts while there is a
  // what-if (null: none).
  void setGhosts(OutcomePtr whatIf, OutcomePtr current);
  // Opens (or brings up) the per-request table with the live run's requests so far.
  RequestTableDialog* openRequestTable();
  // Draws what it has now instead of at the next tick (tests, exports).
  void redraw();

 protected:
  void showEvent(QShowEvent* event) override;

 public Q_SLOTS:
  // Takes the requests completed since the last snapshot seen; a redraw follows shortly.
  void setSnapshot(const kvscope::ui::SnapshotPtr& snapshot);
  void appendMetrics(const kvscope::ui::MetricsPtr& metrics);
  void clearHistory();

 private:
  void reloadQueue();
  void startOver(const slo_spec& slo);
  void updateSummary();
  void updateMissSummary();  // the "why missed" view's line: misses and their main cause

  LatencyCharts* charts_ = nullptr;
  LiveLabel* summary_ = nullptr;
  QPushButton* requestsButton_ = nullptr;
  QToolButton* whyButton_ = nullptr;
  RequestTableDialog* table_ = nullptr;
  QTimer* redrawTimer_ = nullptr;
  const metrics_history* history_ = nullptr;
  std::size_t queuePoints_ = 0;
  SnapshotPtr last_;                 // the newest snapshot seen
  std::uint64_t generation_ = 0;     // of the requests taken
  std::uint64_t taken_ = 0;          // records taken from the snapshots
  std::string sloText_;              // the run's --slo as the summary gives it
  latency_series_builder builder_;
  latency_series series_;
  OutcomePtr ghostWhatIf_, ghostCurrent_;
  std::shared_ptr<const latency_series_builder> ghostBuilders_[2];  // the outcomes' own
  bool dirty_ = false;
  bool hiddenChanges_ = false;  // the timer fired while the panel was behind another tab
};

}  // namespace kvscope::ui
