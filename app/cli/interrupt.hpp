#pragma once
// Ctrl-C as a request to stop cleanly: while an interrupt_guard lives, SIGINT and SIGTERM set
// a flag (long work checks it between runs and steps) instead of killing the process; a second
// Ctrl-C kills it as usual. The previous handlers come back with the guard's end.
#include <atomic>

namespace kvscope::cli {

// For the whole process: SIGINT, SIGTERM, SIGHUP and every other catchable signal that ends a
// process (SIGQUIT, SIGPIPE, SIGALRM, SIGXCPU, SIGXFSZ, SIGUSR1/2) remove the atomic writers' temporary files
// (util/temp_registry) and then kill the process by the same signal, so its exit status still
// says which. Signals the caller ignores (nohup, a background job) stay ignored.
void remove_temporaries_on_fatal_signals();

class interrupt_guard {
 public:
  interrupt_guard();
  ~interrupt_guard();
  interrupt_guard(const interrupt_guard&) = delete;
  interrupt_guard& operator=(const interrupt_guard&) = delete;

  // True once a signal came.
  static const std::atomic<bool>& flag() noexcept;
};

}  // namespace kvscope::cli
