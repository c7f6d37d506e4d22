#include "scripted_feed.hpp"

#include <type_traits>

namespace kvscope::ui {
namespace {

// A reader that stops polling must not make the feed grow without bound.
constexpr std::size_t max_unread = 1u << 15;
constexpr auto publish_interval = std::chrono::milliseconds(16);

}  // namespace

ScriptedFeed::ScriptedFeed(const ScriptedEngineOptions& options, Mode mode, double steps_per_second)
    : options_(options), engine_(options), mode_(mode), speed_(steps_per_second) {
  publish();
  if (mode_ == Mode::threaded) thread_ = std::thread([this] { run(); });
}

ScriptedFeed::~ScriptedFeed() {
  {
    std::lock_guard lock(commands_mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ScriptedFeed::post(runner_command command) {
  {
    std::lock_guard lock(commands_mutex_);
    commands_.push_back(std::move(command));
  }
  wake_.notify_all();
}

std::shared_ptr<const engine_snapshot> ScriptedFeed::latest() const {
  std::lock_guard lock(snapshot_mutex_);
  taken_ = true;
  return latest_;
}

void ScriptedFeed::setSeed(std::uint64_t seed) {
  std::lock_guard lock(commands_mutex_);
  pending_seed_ = seed;
  seed_pending_ = true;
}

std::vector<logged_command> ScriptedFeed::commandLog() const {
  std::lock_guard lock(commands_mutex_);
  return log_;
}

void ScriptedFeed::apply(const runner_command& command) {
  {
    std::lock_guard lock(commands_mutex_);
    log_.push_back({engine_.step_index(), command});
  }
  std::visit(
      [this](const auto& c) {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, play_command>) {
          playing_ = true;
          steps_to_run_ = 0;
          next_step_ = clock::now();
        } else if constexpr (std::is_same_v<T, pause_command>) {
          playing_ = false;
          steps_to_run_ = 0;
        } else if constexpr (std::is_same_v<T, step_command>) {
          playing_ = false;
          steps_to_run_ = c.steps;
        } else if constexpr (std::is_same_v<T, speed_command>) {
          speed_ = c.steps_per_second > 0 ? c.steps_per_second : 0;
          next_step_ = clock::now();
        } else if constexpr (std::is_same_v<T, reconfigure_command>) {
          (void)engine_.reconfigure(c.config);  // invalid: logged above and ignored
        } else if constexpr (std::is_same_v<T, reset_command>) {
          std::optional<std::uint64_t> seed;
          {
            std::lock_guard lock(commands_mutex_);
            if (seed_pending_) seed = pending_seed_;
            seed_pending_ = false;
          }
          engine_.reset(seed);
          ++generation_;
          since_publish_.clear();
          std::lock_guard lock(snapshot_mutex_);
          unread_.clear();
          published_count_ = 0;
        }
      },
      command);
}

void ScriptedFeed::stepOnce() {
  engine_.step();
  since_publish_.push_back(engine_.last_metrics());
  if (steps_to_run_ > 0) --steps_to_run_;
}

void ScriptedFeed::publish() {
  auto snap = std::make_shared<engine_snapshot>(engine_.snapshot());
  snap->generation = generation_;
  snap->playing = playing_;
  {
    std::lock_guard lock(commands_mutex_);
    snap->command_log = log_;
  }
  std::lock_guard lock(snapshot_mutex_);
  if (taken_) {  // the reader has the previous metrics: drop them
    unread_.erase(unread_.begin(), unread_.begin() + static_cast<std::ptrdiff_t>(published_count_));
  }
  unread_.insert(unread_.end(), since_publish_.begin(), since_publish_.end());
  since_publish_.clear();
  if (unread_.size() > max_unread) {
    unread_.erase(unread_.begin(), unread_.end() - static_cast<std::ptrdiff_t>(max_unread));
  }
  snap->new_metrics = unread_;
  published_count_ = unread_.size();
  taken_ = false;
  latest_ = std::move(snap);
  last_publish_ = clock::now();
}

std::uint64_t ScriptedFeed::pump(std::uint64_t max_steps) {
  std::deque<runner_command> queued;
  {
    std::lock_guard lock(commands_mutex_);
    queued.swap(commands_);
  }
  for (const auto& c : queued) apply(c);
  std::uint64_t ran = 0;
  while (ran < max_steps && (playing_ || steps_to_run_ > 0)) {
    stepOnce();
    ++ran;
  }
  publish();
  return ran;
}

void ScriptedFeed::run() {
  next_step_ = clock::now();
  for (;;) {
    std::deque<runner_command> queued;
    {
      std::unique_lock lock(commands_mutex_);
      const bool busy = playing_ || steps_to_run_ > 0;
      if (!busy && commands_.empty()) {
        wake_.wait(lock, [this] { return stop_ || !commands_.empty(); });
      } else if (busy && speed_ > 0 && commands_.empty()) {
        wake_.wait_until(lock, next_step_, [this] { return stop_ || !commands_.empty(); });
      }
      if (stop_) return;
      queued.swap(commands_);
    }
    for (const auto& c : queued) apply(c);
    const bool busy = playing_ || steps_to_run_ > 0;
    const auto now = clock::now();
    if (busy && (speed_ <= 0 || now >= next_step_)) {
      stepOnce();
      if (speed_ > 0) {
        next_step_ += std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(1.0 / speed_));
        if (next_step_ < now - std::chrono::milliseconds(250)) next_step_ = now;  // don't sprint to catch up
      }
    }
    const bool idle = !playing_ && steps_to_run_ == 0;
    const bool due = clock::now() - last_publish_ >= publish_interval;
    if (!queued.empty() || (!since_publish_.empty() && (idle || due))) publish();
  }
}

}  // namespace kvscope::ui
