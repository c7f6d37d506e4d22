#include "sweep_sink.hpp"

#include <cstdio>

#include "cli_support.hpp"

namespace kvscope::cli {
namespace {

using clock = std::chrono::steady_clock;

double seconds(clock::duration d) { return std::chrono::duration<double>(d).count(); }

// "1:02:03", "2:03" or "4 s".
std::string duration_text(double s) {
  char buf[32];
  const auto total = static_cast<long long>(s + 0.5);
  if (total >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
  } else if (total >= 60) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", total / 60, total % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lld s", total);
  }
  return buf;
}

}  // namespace

sweep_sink::sweep_sink(sweep_file& file, const sweep_plan& plan, std::size_t todo, bool verbose,
                       double checkpoint_s)
    : file_(file),
      plan_(plan),
      todo_(todo),
      verbose_(verbose),
      progress_(stderr_is_terminal()),
      checkpoint_s_(checkpoint_s),
      start_(clock::now()),
      last_checkpoint_(start_),
      last_progress_(start_) {}

sweep_sink::~sweep_sink() = default;

void sweep_sink::started() {
  const std::lock_guard lock(mutex_);
  ++running_;
  print_progress_locked(false);
}

void sweep_sink::done(std::size_t index, std::string row, double wall_seconds, const std::string& where) {
  const std::lock_guard lock(mutex_);
  file_.add(index, std::move(row));
  ++completed_;
  if (running_ > 0) --running_;
  if (verbose_) {
    if (progress_) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "sweep: config %zu (%s) took %.3f s on %s\n", index, describe(plan_.configs[index]).c_str(),
                 wall_seconds, where.c_str());
  }
  const auto now = clock::now();
  if (seconds(now - last_checkpoint_) >= checkpoint_s_) {
    last_checkpoint_ = now;
    if (auto r = file_.write(); !r && checkpoint_error_.empty()) checkpoint_error_ = r.error();
  }
  print_progress_locked(completed_ == todo_);
}

void sweep_sink::print_progress_locked(bool force) {
  if (!progress_) return;
  const auto now = clock::now();
  if (!force && seconds(now - last_progress_) < 0.25) return;
  last_progress_ = now;
  const double elapsed = seconds(now - start_);
  std::string eta;
  if (completed_ > 0 && completed_ < todo_) {
    eta = ", ETA " + duration_text(elapsed / static_cast<double>(completed_) * static_cast<double>(todo_ - completed_));
  }
  const std::size_t before = file_.size() - completed_;
  std::fprintf(stderr, "\r\033[Ksweep: %zu/%zu configs done%s, %zu running, %s elapsed%s", completed_, todo_,
               before ? (" (+" + std::to_string(before) + " from before)").c_str() : "", running_,
               duration_text(elapsed).c_str(), eta.c_str());
}

expected<void, std::string> sweep_sink::finish() {
  const std::lock_guard lock(mutex_);
  if (progress_) std::fprintf(stderr, "\r\033[K");
  if (!checkpoint_error_.empty()) return unexpected{checkpoint_error_};
  return file_.write();
}

std::size_t sweep_sink::completed() const {
  const std::lock_guard lock(mutex_);
  return completed_;
}

double sweep_sink::elapsed_s() const { return seconds(clock::now() - start_); }

}  // namespace kvscope::cli
