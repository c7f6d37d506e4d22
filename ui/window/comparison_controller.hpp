#pragma once
// The window's comparisons, wired in one place: the what-if (a changed policy or engine run
// over the whole load in the background, drawn as a ghost on the plots and compared with the
// current config), the runs kept between sessions (the run list, a baseline), a finished live
// run kept there, two kept runs side by side, and a sweep row run as a what-if. It makes the
// comparison's views for the window to place; what needs the window (a dock to the front, the
// status bar, a new run) it asks for by signal, so the window keeps arranging only.
#include <QObject>
#include <QString>

#include <functional>

#include "jobs/background_run.hpp"
#include "common/meta_types.hpp"

namespace kvscope::ui {

class ComparePanel;
class EngineOptionsBox;
class LatencyPanel;
class MemoryPlot;
class PolicyController;
class PressurePlot;
class RunListPanel;
class RunStore;
class SweepPanel;
class WhatIfController;

class ComparisonController : public QObject {
  Q_OBJECT
 public:
  // The window's views a comparison draws its ghost on, and the engine a what-if may change.
  struct Views {
    PressurePlot* pressure = nullptr;
    MemoryPlot* memory = nullptr;
    LatencyPanel* latency = nullptr;
    EngineOptionsBox* engineBox = nullptr;
  };

  // Compares against `run`'s config; `runsDirectory`: where finished runs are kept ("" = the
  // app data folder).
  ComparisonController(const run_description& run, const Views& views, PolicyController* policy,
                       const QString& runsDirectory, QObject* parent = nullptr);

  WhatIfController* whatIf() const { return whatIf_; }
  RunStore* runStore() const { return runs_; }
  // The comparison's views, for the window to place (it becomes their parent).
  ComparePanel* comparePanel() const { return compare_; }
  RunListPanel* runList() const { return runList_; }
  SweepPanel* sweepPanel() const { return sweepPanel_; }

  // The run now shown: the what-if is compared with its initial config.
  void setRun(const run_description& run);
  // The what-if becomes the current config: kept in the run list, and runRequested for it.
  // False when there is no finished what-if.
  bool applyWhatIf();
  // Drops the what-if; the policy and the engine box go back to the current config.
  void discardWhatIf();
  // Shows two kept runs side by side in the compare panel.
  void compareStored(const QString& referenceId, const QString& otherId);
  // A finished whole run of exactly `config` on the run shown (current or what-if), or null.
  OutcomePtr wholeRunWith(const policy_config& config) const;
  // Calls `ready` once there is a whole run with `config`: runs the current config again (when
  // `config` is it) or proposes it as the what-if, and calls back when that run is done.
  void whenWholeRun(const policy_config& config, std::function<void()> ready);
  // The live `run` has finished at `snapshot`: kept in the run list with its summary.
  void recordFinished(const run_description& run, const SnapshotPtr& snapshot);

 Q_SIGNALS:
  void raiseRequested(const QString& dockName);  // the dock's object name
  void runRequested(const kvscope::run_description& run, const QString& what);
  void statusMessage(const QString& text, int timeoutMs);
  // What became of a request: `success` to show in passing, else `error` to show plainly.
  void reported(bool ok, const QString& success, const QString& error);

 private:
  void wire();
  void showWhatIf();
  void showProgress(double fraction, double secondsLeft);
  void keepRun(const RunOutcome& outcome, const QString& name);  // into the run list

  Views views_;
  PolicyController* policy_;
  WhatIfController* whatIf_ = nullptr;
  RunStore* runs_ = nullptr;
  BackgroundRun* recorder_ = nullptr;  // a finished live run's summary, for the run list
  QString recordName_;                 // the name it gets there
  ComparePanel* compare_ = nullptr;
  RunListPanel* runList_ = nullptr;
  SweepPanel* sweepPanel_ = nullptr;
};

}  // namespace kvscope::ui
