#include "interrupt.hpp"

#include <csignal>

namespace kvscope::cli {
namespace {

std::atomic<bool> interrupted{false};
struct sigaction previous_int, previous_term;

void on_signal(int signal) {
  interrupted.store(true);
  // The next one is not caught: a second Ctrl-C stops a process that does not stop by itself.
  ::sigaction(signal, signal == SIGINT ? &previous_int : &previous_term, nullptr);
}

}  // namespace

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
