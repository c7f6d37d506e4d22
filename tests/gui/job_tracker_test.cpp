// The job tracker every background job of the GUI goes through: only the newest job's result
// and progress reach the GUI thread, cancel() stops a job and drops what it returns, start()
// never waits on a running job, and the destructor cancels and joins.
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "gui_test_support.hpp"
#include "jobs/job_tracker.hpp"

namespace kvscope::ui {
namespace {

using namespace std::chrono_literals;

// Spins until `open` (or a minute, so a broken tracker fails instead of hanging); returns
// whether the job was cancelled meanwhile.
bool holdUntil(const std::atomic<bool>& open, const JobTracker::Job& job) {
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!open.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  return job.cancelled().load();
}

TEST(JobTracker, AStaleResultIsDroppedAndTheNewestDelivered) {
  std::vector<int> delivered;
  std::atomic<bool> release{false};
  std::atomic<bool> staleSawCancel{false};
  const auto keep = [&](int value) { delivered.push_back(value); };
  JobTracker tracker;  // after what its jobs use: it joins them first
  const quint64 stale = tracker.start([&](const JobTracker::Job& job) {
    staleSawCancel = holdUntil(release, job);
    return 1;
  }, keep);
  const quint64 newest = tracker.start([](const JobTracker::Job&) { return 2; }, keep);
  EXPECT_NE(stale, newest);
  EXPECT_TRUE(tracker.busy());
  ASSERT_TRUE(test::waitFor([&] { return !delivered.empty(); }));
  EXPECT_FALSE(tracker.busy()) << "the newest job's result has arrived";
  release = true;  // only now does the stale job return
  ASSERT_TRUE(test::waitFor([&] { return tracker.droppedResults() == 1; }));
  QTest::qWait(20);
  EXPECT_EQ(delivered, std::vector<int>{2});
  EXPECT_TRUE(staleSawCancel) << "the newer start cancelled it";
}

TEST(JobTracker, CancelStopsTheJobAndDropsWhatItReturns) {
  std::atomic<bool> stopped{false};
  int delivered = 0;
  JobTracker tracker;
  QSignalSpy busy(&tracker, &JobTracker::busyChanged);
  tracker.start([&](const JobTracker::Job& job) {
    while (!job.cancelled().load()) std::this_thread::sleep_for(1ms);  // until cancelled
    stopped = true;
    return 0;
  }, [&](int) { ++delivered; });
  ASSERT_TRUE(tracker.busy());
  tracker.cancel();
  EXPECT_FALSE(tracker.busy());
  ASSERT_TRUE(test::waitFor([&] { return tracker.droppedResults() == 1; }));
  EXPECT_TRUE(stopped);
  EXPECT_EQ(delivered, 0);
  ASSERT_EQ(busy.count(), 2);
  EXPECT_TRUE(busy.at(0).at(0).toBool());
  EXPECT_FALSE(busy.at(1).at(0).toBool());
}

TEST(JobTracker, ProgressOfAJobNoLongerWantedIsDropped) {
  std::vector<int> heard;
  std::atomic<bool> release{false};
  JobTracker tracker;
  tracker.start([&](const JobTracker::Job& job) {
    job.post([&] { heard.push_back(1); });  // while still wanted: heard
    holdUntil(release, job);
    job.post([&] { heard.push_back(2); });  // after cancel(): dropped
    return 0;
  }, [](int) {});
  ASSERT_TRUE(test::waitFor([&] { return !heard.empty(); }));
  tracker.cancel();
  release = true;
  ASSERT_TRUE(test::waitFor([&] { return tracker.droppedResults() == 1; }));
  QTest::qWait(20);
  EXPECT_EQ(heard, std::vector<int>{1});
}

TEST(JobTracker, StartNeverWaitsAndTheDestructorCancelsAndJoins) {
  auto stopped = std::make_shared<std::atomic<bool>>(false);
  {
    JobTracker tracker;
    const auto begun = std::chrono::steady_clock::now();
    tracker.start([stopped](const JobTracker::Job& job) {
      while (!job.cancelled().load()) std::this_thread::sleep_for(1ms);  // runs until cancelled
      std::this_thread::sleep_for(50ms);  // and takes a while to stop
      stopped->store(true);
      return 0;
    }, [](int) { ADD_FAILURE() << "nothing is delivered after destruction"; });
    EXPECT_LT(std::chrono::steady_clock::now() - begun, 1s) << "start() returned while the job ran";
  }
  EXPECT_TRUE(stopped->load()) << "the destructor joined the job";
  QTest::qWait(20);  // a queued delivery, if one were left, would run here
}

}  // namespace
}  // namespace kvscope::ui
