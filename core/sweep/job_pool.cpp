#include "sweep/job_pool.hpp"

#include <tbb/task_arena.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace kvscope {

void run_jobs(std::size_t count, unsigned jobs, const std::atomic<bool>& stop,
              const std::function<void(std::size_t)>& body) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  const auto work = [&] {
    tbb::task_arena arena(1);
    arena.execute([&] {
      for (;;) {
        if (stop.load() || failed.load()) return;
        const std::size_t i = next.fetch_add(1);
        if (i >= count) return;
        try {
          body(i);
        } catch (...) {
          const std::lock_guard lock(error_mutex);
          if (!first_error) first_error = std::current_exception();
          failed = true;
        }
      }
    });
  };
  const std::size_t threads = std::min<std::size_t>(std::max(1u, jobs), count);
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(work);
  if (threads > 0) work();
  for (auto& h : helpers) h.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace kvscope
