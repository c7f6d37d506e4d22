#pragma once
// The metrics CSV of a run longer than the window keeps (metrics_history holds the newest
// 65,536 steps in full): every step is written by running the run's session again headless,
// off the GUI thread, as `kvscope-cli replay --session … --metrics` would. The engine is
// deterministic, and the export checks it: the re-run's last steps must equal, bit for bit,
// the ones the window kept. When they do not (or the load cannot be read again), the file
// gets the steps the window kept and the message says exactly which steps are missing.
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "engine/step_metrics.hpp"
#include "io/session_file.hpp"
#include "jobs/job_tracker.hpp"

namespace kvscope::ui {

class MetricsExport : public QObject {
  Q_OBJECT
 public:
  struct Result {
    bool written = false;   // the file is there (every step, or the kept ones)
    bool complete = false;  // …with every step of the run
    std::uint64_t rows = 0;
    QString message;  // what was written, or why nothing was
  };

  explicit MetricsExport(QObject* parent = nullptr);
  ~MetricsExport() override;  // cancels the job and waits for its thread

  // Writes the steps of `session` (a run at its saved step) to `path`; `kept` are the newest
  // steps the window has, oldest first. Cancels a job still running. `finished` follows on
  // the GUI thread.
  void start(run_description session, std::vector<step_metrics> kept, QString path);
  void cancel();
  bool busy() const { return jobs_.busy(); }

  // The job itself, on the calling thread (for tests and the worker).
  static Result write(const run_description& session, const std::vector<step_metrics>& kept, const QString& path,
                      const std::atomic<bool>& cancelled, const std::function<void(double)>& progress = {});

 Q_SIGNALS:
  void progress(double fraction);  // throttled
  void finished(const QString& path, const kvscope::ui::MetricsExport::Result& result);

 private:
  JobTracker jobs_;  // last: its destructor joins the workers before the rest goes
};

}  // namespace kvscope::ui
