#pragma once
// Independent tasks on a few threads, each confined to one core's worth of TBB: a sweep's,
// tune's and capacity search's runs. Every thread runs its tasks inside its own
// tbb::task_arena of concurrency 1, so a run's parallel loops stay on its thread and N jobs
// use N cores without competing for TBB's workers (results do not depend on it: the engine
// gives the same bytes whatever the thread count).
#include <atomic>
#include <cstddef>
#include <functional>

namespace kvscope {

// Calls body(i) for i in [0, count) on min(jobs, count) threads (jobs 0 counts as 1), taking
// tasks in index order. Once `stop` is true no further task starts. If a body throws, no
// further task starts and the first exception is rethrown after every thread has finished.
void run_jobs(std::size_t count, unsigned jobs, const std::atomic<bool>& stop,
              const std::function<void(std::size_t)>& body);

}  // namespace kvscope
