#include "interrupt.hpp"

#include <csignal>

#include "util/temp_registry.hpp"

namespace kvscope::cli {
namespace {

std::atomic<bool> interrupted{false};
struct sigaction previous_int, previous_term;

void on_signal(int signal) {
  interrupted.store(true);
  // The next one is not caught: a second Ctrl-C stops a process that does not stop by itself.
  ::sigaction(signal, signal == SIGINT ? &previous_int : &previous_term, nullptr);
}

// Only async-signal-safe calls: unlink (in the registry), sigaction, raise.
void remove_temporaries_and_reraise(int signal) {
  remove_live_temporaries();
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal, &fallback, nullptr);
  ::raise(signal);  // blocked until this handler returns, then the default action
}

}  // namespace

void remove_temporaries_on_fatal_signals() {
  // Every signal whose default action ends the process and that a handler may catch.
  for (int signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGXCPU, SIGXFSZ, SIGUSR1,
                     SIGUSR2}) {
    struct sigaction current {};
    if (::sigaction(signal, nullptr, &current) != 0 || current.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = remove_temporaries_and_reraise;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal, &action, nullptr);
  }
}

interrupt_guard::interrupt_guard() {
  interrupted = false;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &previous_int);
  ::sigaction(SIGTERM, &action, &previous_term);
}

interrupt_guard::~interrupt_guard() {
  ::sigaction(SIGINT, &previous_int, nullptr);
  ::sigaction(SIGTERM, &previous_term, nullptr);
}

const std::atomic<bool>& interrupt_guard::flag() noexcept { return interrupted; }

}  // namespace kvscope::cli
