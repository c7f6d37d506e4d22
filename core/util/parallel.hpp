#pragma once
// The engine's one door to oneTBB's loops: callers see index ranges and lambdas, not TBB types.
// Loops run inside whatever task arena the caller is in (the runner limits its threads there).
//
// Under ThreadSanitizer the same loops run on plain std::threads instead: libtbb comes
// prebuilt, so TSan cannot see how it hands tasks between threads and reports every loop body
// as racing with its caller. Threads it can see keep the bodies concurrent with each other, as
// with TBB, so a race between two bodies is still found.
#include <algorithm>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#if defined(__SANITIZE_THREAD__)
#define KVSCOPE_PLAIN_THREADS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KVSCOPE_PLAIN_THREADS 1
#endif
#endif

#ifdef KVSCOPE_PLAIN_THREADS
#include <thread>
#include <vector>
#endif

namespace kvscope {

// Calls body(begin, end) on disjoint chunks covering [first, last), in parallel; a chunk holds
// at least `grain` indices unless it is the last. Returns when every chunk is done.
template <class Index, class Body>
void parallel_chunks(Index first, Index last, Index grain, const Body& body) {
  if (first >= last) return;
#ifdef KVSCOPE_PLAIN_THREADS
  const auto size = static_cast<std::size_t>(last - first);
  const std::size_t threads = std::min<std::size_t>(
      static_cast<std::size_t>(std::max(1, tbb::this_task_arena::max_concurrency())),
      std::max<std::size_t>(1, size / std::max<std::size_t>(1, static_cast<std::size_t>(grain))));
  const auto chunk_begin = [&](std::size_t t) { return first + static_cast<Index>(size * t / threads); };
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < threads; ++t) {
    helpers.emplace_back([&, t] { body(chunk_begin(t), chunk_begin(t + 1)); });
  }
  body(chunk_begin(0), chunk_begin(1));
  for (std::thread& h : helpers) h.join();
#else
  tbb::parallel_for(tbb::blocked_range<Index>(first, last, grain),
                    [&](const tbb::blocked_range<Index>& r) { body(r.begin(), r.end()); });
#endif
}

// Calls body(i) for every i in [first, last), in parallel.
template <class Index, class Body>
void parallel_for_each_index(Index first, Index last, const Body& body) {
  parallel_chunks(first, last, Index{1}, [&](Index begin, Index end) {
    for (Index i = begin; i != end; ++i) body(i);
  });
}

}  // namespace kvscope
