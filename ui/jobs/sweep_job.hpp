#pragma once
// A sweep run off the GUI thread: every config of a plan over a base run, on a few job threads
// through core's sweep runner (run_sweep_rows), the rows gathered by core's sweep_file, so the
// CSV is the same bytes as `kvscope-cli sweep` writes for the same base and grid. Progress and
// the result are posted back to the GUI thread; a newer start or cancel() drops a stale job's
// result (JobTracker). The GUI thread never waits on a job.
#include <QByteArray>
#include <QObject>
#include <QString>

#include <cstddef>

#include "jobs/job_tracker.hpp"
#include "run/run_description.hpp"
#include "sweep/sweep_space.hpp"

namespace kvscope::ui {

class SweepJob : public QObject {
  Q_OBJECT
 public:
  explicit SweepJob(QObject* parent = nullptr);
  ~SweepJob() override;

  // Runs every config of `plan` (checked by check_plan over `base`) on `jobs` threads; cancels
  // any older sweep. Returns the job id.
  quint64 start(const run_description& base, const sweep_plan& plan, unsigned jobs);
  // Stops the running sweep: its configs stop between two engine steps, no result follows.
  void cancel();
  bool busy() const { return jobs_.busy(); }

 Q_SIGNALS:
  // `done` of `total` configs, seconds since the start and an estimate of those left (-1 before
  // the first config ends).
  void progress(int done, int total, double elapsedS, double etaS);
  // The whole sweep CSV, or why a run failed ("" error when it did not).
  void finished(const QByteArray& csv, const QString& error);

 private:
  JobTracker jobs_;  // last: its destructor joins the workers before the rest goes
};

}  // namespace kvscope::ui
