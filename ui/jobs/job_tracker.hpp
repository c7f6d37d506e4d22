#pragma once
// The background jobs of one GUI object, newest wins (hotspot's JobTracker): every start() gets
// an id and a cancel flag and supersedes the job before it. What a job hands back (its result,
// its progress) is queued to the GUI thread and runs there only while that job is still the
// wanted one, so a stale result is dropped here and nowhere else. Jobs run on this tracker's own
// small pool: the GUI thread never waits on a running job, except in the destructor, which
// cancels the jobs and joins them. Used on the GUI thread only (Job::post from any thread).
#include <QObject>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <type_traits>
#include <utility>

namespace kvscope::ui {

class JobTracker : public QObject {
  Q_OBJECT
 public:
  // What a running job is given: its id, its cancel flag and its way back to the GUI thread.
  class Job {
   public:
    quint64 id() const { return id_; }
    // Set when a newer job starts, on cancel() and on destruction; the job checks it between steps.
    const std::atomic<bool>& cancelled() const { return *cancelled_; }
    // Runs `call` on the GUI thread, unless this job is no longer wanted when it gets there.
    template <class Call>
    void post(Call call) const {
      tracker_->post(id_, std::move(call));
    }

   private:
    friend class JobTracker;
    JobTracker* tracker_ = nullptr;
    quint64 id_ = 0;
    std::shared_ptr<std::atomic<bool>> cancelled_;
  };

  explicit JobTracker(QObject* parent = nullptr);
  ~JobTracker() override;  // cancels every job and waits for its thread

  // Runs `work(const Job&)` off the GUI thread as the new wanted job, cancelling the one before;
  // `deliver(result)` gets what it returns, on the GUI thread, if it is still wanted then.
  template <class Work, class Deliver>
  quint64 start(Work work, Deliver deliver);
  // Cancels the wanted job: nothing more of it is delivered.
  void cancel();
  // A job is running whose result is still wanted.
  bool busy() const { return wanted_ != 0; }
  // Results that arrived for a job no longer wanted, and were dropped.
  int droppedResults() const { return dropped_; }

 Q_SIGNALS:
  void busyChanged(bool busy);

 private:
  Job begin();               // a new id and flag; the job before is cancelled
  bool finish(quint64 id);   // job `id`'s result arrived: whether it is delivered
  template <class Call>
  void post(quint64 id, Call call);

  QThreadPool pool_;
  std::shared_ptr<std::atomic<bool>> cancelFlag_;  // the newest job's (older ones are set already)
  quint64 wanted_ = 0;                             // the job whose result is wanted; 0: none
  int dropped_ = 0;
};

template <class Call>
void JobTracker::post(quint64 id, Call call) {
  // Queued on this object: ~QObject discards what is still queued once the destructor has joined.
  QMetaObject::invokeMethod(this, [this, id, call = std::move(call)]() mutable {
    if (id == wanted_) call();
  }, Qt::QueuedConnection);
}

template <class Work, class Deliver>
quint64 JobTracker::start(Work work, Deliver deliver) {
  using Result = std::invoke_result_t<Work&, const Job&>;
  const Job job = begin();
  pool_.start([this, job, work = std::move(work), deliver = std::move(deliver)]() mutable {
    // Shared: a queued call is copied, and a result may be move-only (a runner).
    auto result = std::make_shared<Result>(work(job));
    QMetaObject::invokeMethod(this, [this, id = job.id(), result, deliver = std::move(deliver)]() mutable {
      if (finish(id)) deliver(std::move(*result));
    }, Qt::QueuedConnection);
  });
  return job.id();
}

}  // namespace kvscope::ui
