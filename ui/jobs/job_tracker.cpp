#include "jobs/job_tracker.hpp"

namespace kvscope::ui {
namespace {

// A superseded job may still be finishing an engine step or building an engine: the new one
// should not queue behind it, so the pool has room for a few at once.
constexpr int poolThreads = 4;

}  // namespace

JobTracker::JobTracker(QObject* parent) : QObject(parent) { pool_.setMaxThreadCount(poolThreads); }

JobTracker::~JobTracker() {
  if (cancelFlag_) cancelFlag_->store(true);
  wanted_ = 0;
  pool_.clear();        // a job not started yet never starts
  pool_.waitForDone();  // a cancelled job stops between two steps
}

void JobTracker::cancel() {
  if (cancelFlag_) cancelFlag_->store(true);
  if (wanted_ == 0) return;
  wanted_ = 0;
  Q_EMIT busyChanged(false);
}

JobTracker::Job JobTracker::begin() {
  static std::atomic<quint64> nextId{0};  // unique across trackers: a test can tell jobs apart
  if (cancelFlag_) cancelFlag_->store(true);  // superseded
  Job job;
  job.tracker_ = this;
  job.id_ = ++nextId;
  job.cancelled_ = std::make_shared<std::atomic<bool>>(false);
  cancelFlag_ = job.cancelled_;
  const bool wasBusy = busy();
  wanted_ = job.id_;
  if (!wasBusy) Q_EMIT busyChanged(true);
  return job;
}

bool JobTracker::finish(quint64 id) {
  if (id != wanted_) {
    ++dropped_;
    return false;
  }
  wanted_ = 0;
  Q_EMIT busyChanged(false);
  return true;
}

}  // namespace kvscope::ui
