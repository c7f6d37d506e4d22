#pragma once
// The worker threads of a GUI object's background jobs (hotspot's pattern): each job has an id
// and a cancel flag; a newer job cancels the older ones, whose results the owner drops. Used
// on the GUI thread only. A worker's last act is to post its result to the owner, which then
// reaps it (the join returns at once), so the GUI thread never waits on a running job.
#include <QtGlobal>

#include <atomic>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

namespace kvscope::ui {

class JobThreads {
 public:
  JobThreads() = default;
  JobThreads(const JobThreads&) = delete;
  JobThreads& operator=(const JobThreads&) = delete;
  ~JobThreads() { stopAll(); }

  // Runs `work(const std::atomic<bool>& cancelled)` on a new thread as job `id`.
  template <class Work>
  void start(quint64 id, Work&& work) {
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    std::thread thread([cancelled, work = std::forward<Work>(work)]() mutable { work(*cancelled); });
    jobs_.push_back({id, std::move(cancelled), std::move(thread)});
  }
  // Asks every job to stop (each checks its flag between steps).
  void cancelAll() {
    for (Job& j : jobs_) j.cancelled->store(true);
  }
  // Joins job `id` once it has posted its last call.
  void reap(quint64 id) {
    for (auto it = jobs_.begin(); it != jobs_.end(); ++it) {
      if (it->id != id) continue;
      if (it->thread.joinable()) it->thread.join();
      jobs_.erase(it);
      return;
    }
  }
  // Cancels every job and waits for its thread: for the owner's destructor, before it goes.
  void stopAll() {
    cancelAll();
    for (Job& j : jobs_) {
      if (j.thread.joinable()) j.thread.join();
    }
    jobs_.clear();
  }

 private:
  struct Job {
    quint64 id = 0;
    std::shared_ptr<std::atomic<bool>> cancelled;
    std::thread thread;
  };
  std::vector<Job> jobs_;
};

}  // namespace kvscope::ui
