#pragma once
// Prepares a new run off the GUI thread, so the window never waits on a file or on building a
// big engine: checks the engine options, opens the load, reads a whole trace once to validate
// every row (with progress), then builds the runner. Starting another job cancels the previous
// one, and only the newest job's result is delivered (JobTracker). A failed job delivers the
// reader's message and changes nothing: what runs now keeps running.
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

#include "jobs/job_tracker.hpp"
#include "run/runner.hpp"
#include "io/session_file.hpp"

namespace kvscope::ui {

class RunLoader : public QObject {
  Q_OBJECT
 public:
  struct Result {
    run_description run;
    std::unique_ptr<runner> feed;  // null on failure
    QString error;                 // "file:line: why", or why the options cannot run
    QString note;                  // what the reader skipped (with skip_bad_rows), else empty
  };
  using Done = std::function<void(Result&& result)>;

  explicit RunLoader(QObject* parent = nullptr);
  ~RunLoader() override;  // cancels every job and waits for its thread

  // Starts preparing `run` (its commands become the runner's script). `done` runs on the GUI
  // thread when this job is still the newest one; returns the job id.
  quint64 start(run_description run, runner_options options, Done done);
  void cancel();
  bool busy() const { return jobs_.busy(); }

 Q_SIGNALS:
  // On the GUI thread, throttled; fraction in [0, 1].
  void progress(quint64 job, double fraction, const QString& text);
  void busyChanged(bool busy);

 private:
  static Result prepare(run_description run, const runner_options& options, const std::atomic<bool>& cancelled,
                        const std::function<void(double, const QString&)>& report);

  JobTracker jobs_;  // last: its destructor joins the workers before the rest goes
};

}  // namespace kvscope::ui
