#pragma once
// The GUI's only link to the engine: owns an engine_feed, polls latest() on the GUI thread at
// about 30 fps (never waiting: latest() returns at once), hands each new snapshot to the
// widgets — and, separately, every step's metrics exactly once — and posts runner_commands.
// It also keeps every step's metrics (the last 65,536 in full) for the metrics CSV export.
#include <QElapsedTimer>
#include <QObject>

#include <memory>
#include <optional>
#include <vector>

#include "run/commands.hpp"
#include "run/metrics_history.hpp"
#include "common/meta_types.hpp"

class QTimer;

namespace kvscope::ui {

class EngineBridge : public QObject {
  Q_OBJECT
 public:
  explicit EngineBridge(std::unique_ptr<engine_feed> feed, QObject* parent = nullptr);
  ~EngineBridge() override;

  engine_feed* feed() const { return feed_.get(); }
  // Swaps in another engine (a newly opened load): the widgets start over.
  void setFeed(std::unique_ptr<engine_feed> feed);
  SnapshotPtr current() const { return current_; }
  // Steps whose metrics never reached the GUI (the feed published faster than we polled and
  // did not carry them over). Reported, not hidden.
  std::uint64_t missedSteps() const { return missed_; }
  double stepsPerSecond() const { return stepRate_; }
  // Every step of this run (since the feed or the last reset) the GUI has seen: the newest
  // in full, older ones decimated once the run is long (see metrics_history). The plots draw
  // from it and the metrics CSV export writes it: it is filled before metricsArrived.
  const metrics_history& history() const { return history_; }

  void start(int intervalMs = 33);
  void stop();

 public Q_SLOTS:
  // One poll: takes latest(); emits snapshotReady when it is a new snapshot.
  void poll();
  void post(const kvscope::runner_command& command);
  void postPolicy(const kvscope::policy_config& config);

 Q_SIGNALS:
  // Steps not seen before, oldest first; emitted before the snapshotReady that carried them.
  void metricsArrived(const kvscope::ui::MetricsPtr& metrics);
  void snapshotReady(const kvscope::ui::SnapshotPtr& snapshot);
  // A reset (generation changed or the step went backwards) or a new feed: plots start over.
  void historyReset();
  // The engine runs a policy the GUI did not ask for (first snapshot, or changed elsewhere).
  void enginePolicy(const kvscope::policy_config& config);
  void commandPosted(const kvscope::runner_command& command);

 private:
  std::unique_ptr<engine_feed> feed_;
  QTimer* timer_ = nullptr;
  QTimer* retry_ = nullptr;  // a quick second look when a tick found nothing new
  int retries_ = 0;
  SnapshotPtr current_;
  std::optional<policy_config> pendingPolicy_;
  std::uint64_t missed_ = 0;
  bool haveStep_ = false;
  std::uint64_t lastMetricStep_ = 0;
  metrics_history history_{1 << 16, 4096};
  QElapsedTimer rateClock_;
  std::uint64_t rateStep_ = 0;
  double stepRate_ = 0;
};

}  // namespace kvscope::ui
