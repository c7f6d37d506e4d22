#pragma once
// The what-if: a changed policy config (a threshold, alpha, hysteresis, the level range) is run
// over the whole load in the background, debounced, and so is the config the run started
// with ("current"), so the two columns of the comparison are whole runs of exactly one config
// each. A newer change cancels a stale job and a stale result is dropped (BackgroundRun).
// Apply makes the what-if the current config. The GUI thread never waits.
#include <QElapsedTimer>
#include <QObject>

#include "jobs/background_run.hpp"
#include "common/meta_types.hpp"

class QTimer;

namespace kvscope::ui {

class WhatIfController : public QObject {
  Q_OBJECT
 public:
  explicit WhatIfController(QObject* parent = nullptr);

  // The run now shown: its initial config is the current one. Keeps the current outcome when
  // it already is that run; drops the what-if.
  void setRun(const run_description& run);
  // Starts the current config's whole run unless it is done or running (a what-if's result does).
  void ensureCurrent();
  // Debounced: a what-if of the current run with `config` (none when it is the current one).
  void propose(const policy_config& config);
  // Debounced: a what-if of `candidate` as a whole run (another budget, model, block size…;
  // none when it is the current run).
  void proposeRun(const run_description& candidate);
  void setDebounceMs(int ms);
  // Makes the what-if the current config (its outcome becomes current); emits applied.
  // Returns false when there is no finished what-if.
  bool apply();
  // Drops the what-if (and cancels its job).
  void discard();

  OutcomePtr current() const { return current_; }
  OutcomePtr whatIf() const { return whatIf_; }
  const run_description& run() const { return run_; }
  // A what-if job runs or waits for its debounce.
  bool whatIfPending() const;
  bool currentPending() const { return currentJobs_->busy(); }
  // Milliseconds from the change to its what-if result (debounce included); -1 before one.
  qint64 lastLatencyMs() const { return latencyMs_; }
  BackgroundRun* whatIfJobs() const { return whatIfJobs_; }
  BackgroundRun* currentJobs() const { return currentJobs_; }

 Q_SIGNALS:
  void currentChanged(const kvscope::ui::OutcomePtr& outcome);
  void whatIfChanged(const kvscope::ui::OutcomePtr& outcome);  // null: no what-if now
  void whatIfStarted();
  void applied(const kvscope::ui::OutcomePtr& outcome);

 private:
  void startWhatIf();

  run_description run_;  // wholeRun of what is shown
  OutcomePtr current_;
  OutcomePtr whatIf_;
  run_description proposed_;
  BackgroundRun* currentJobs_ = nullptr;
  BackgroundRun* whatIfJobs_ = nullptr;
  QTimer* debounce_ = nullptr;
  QElapsedTimer sinceChange_;
  qint64 latencyMs_ = -1;
};

}  // namespace kvscope::ui
