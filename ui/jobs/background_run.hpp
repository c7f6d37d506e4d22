#pragma once
// Runs a whole load headless off the GUI thread, through the one run service (run_to_end),
// keeping a decimated per-step trace to draw as a ghost. Starting a job cancels the ones before
// (through run_to_end's cancel hook), and a result no longer the newest is dropped
// (JobTracker). The GUI thread never waits on a job; the destructor cancels them and joins.
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "jobs/job_tracker.hpp"
#include "outcome/latency_series.hpp"
#include "run/metrics_history.hpp"
#include "run/moments.hpp"
#include "run/run_description.hpp"
#include "run/run_service.hpp"
#include "run/run_summary.hpp"

namespace kvscope::ui {

// A finished whole run: what ran, its summary and its steps (decimated for long runs). The
// summary's measured quality is not there (NaN): the run was made in accounting mode, which
// gives every other figure bit for bit (runWhole).
struct RunOutcome {
  run_description run;  // as asked for, payload included
  run_summary summary;
  std::shared_ptr<const metrics_history> trace;
  // The latency of every request it finished, for the latency panel's ghost: four numbers a
  // request rather than whole records (104 bytes), since a what-if and the current config's
  // run are both held, and a long trace has millions. Never null in what runWhole returns.
  std::shared_ptr<const latency_series_builder> latency;
  // Its moments worth jumping to (peak pressure, busiest minute, level changes, preemptions),
  // from every step: the trace above is decimated. Never null in what runWhole returns.
  std::shared_ptr<const run_moments> moments;
  QString error;  // why it could not run ("" when it did)
};
using OutcomePtr = std::shared_ptr<const RunOutcome>;

// `run` as a whole run of its initial config: no command log, to the end of the load.
run_description wholeRun(run_description run);
// Two descriptions are the same run when their session files are the same text.
bool sameRun(const run_description& a, const run_description& b);
// `outcome` finished without error, and is a run of exactly `run` (its config, load, engine).
bool ranExactly(const OutcomePtr& outcome, const run_description& run);

// A run's --slo text as a spec; none when empty or (never for a run that ran) unreadable.
slo_spec sloOf(const std::string& text);

class BackgroundRun : public QObject {
  Q_OBJECT
 public:
  // How much a job may take from the live engine: what the user asked for (a what-if) runs as
  // the engine does; work done ahead of any question (finding the moments to jump to) yields.
  enum class Share { asked, ahead };

  explicit BackgroundRun(QObject* parent = nullptr, Share share = Share::asked);
  ~BackgroundRun() override;

  // Starts running `run` as given (callers pass wholeRun(...) for a one-config run); cancels
  // older jobs. Returns the job id; `finished` follows for it unless a newer job starts first.
  quint64 start(run_description run);
  // Cancels every job: nothing is delivered until the next start().
  void cancel();
  bool busy() const { return jobs_.busy(); }
  // Jobs started so far: what a shared result saved is counted in.
  int started() const { return started_; }
  // Results that arrived for a job no longer the newest, and were dropped.
  int droppedResults() const { return jobs_.droppedResults(); }

  // The job itself on the calling thread: run_to_end (in accounting mode) with a trace;
  // `progress` (if set) hears where it stands about four times a second.
  static RunOutcome runWhole(const run_description& run, const std::atomic<bool>& cancelled,
                             const std::function<void(const run_progress&)>& progress = {});

 Q_SIGNALS:
  void finished(quint64 job, const kvscope::ui::OutcomePtr& outcome);
  // The newest job's share of the load done, in [0, 1], and the estimated seconds left (-1 while
  // too early to tell); only for runs long enough to report (a quarter second or more).
  void progress(quint64 job, double fraction, double secondsLeft);

 private:
  Share share_;
  int started_ = 0;
  JobTracker jobs_;  // last: its destructor joins the workers before the rest goes
};

}  // namespace kvscope::ui

Q_DECLARE_METATYPE(kvscope::ui::OutcomePtr)
