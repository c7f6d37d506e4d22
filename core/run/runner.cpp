#include "run/runner.hpp"

#include <algorithm>
#include <exception>
#include <type_traits>

#include <tbb/task_arena.h>

#include "engine/engine.hpp"
#include "run/command_script.hpp"
#include "run/run_summary.hpp"

namespace kvscope {
namespace {

using request_chunk = std::shared_ptr<const std::vector<request_record>>;

// Appends `fresh` and merges the newest chunks while the one before is at most twice as big:
// sizes then at least halve along the list, and each record is copied O(log n) times.
void append_requests(std::vector<request_chunk>& chunks, std::vector<request_record>&& fresh) {
  chunks.push_back(std::make_shared<const std::vector<request_record>>(std::move(fresh)));
  while (chunks.size() >= 2 && chunks[chunks.size() - 2]->size() <= 2 * chunks.back()->size()) {
    auto merged = std::make_shared<std::vector<request_record>>(*chunks[chunks.size() - 2]);
    merged->insert(merged->end(), chunks.back()->begin(), chunks.back()->end());
    chunks.pop_back();
    chunks.back() = std::move(merged);
  }
}

}  // namespace

runner::runner(engine_factory make_engine, runner_options options)
    : make_engine_([this, make = std::move(make_engine)] {
        // Every engine it makes (a reset's too) reports its completed requests to the runner.
        auto made = make();
        made->on_request_done([this](const request_record& r) { unpublished_requests_.push_back(r); });
        return made;
      }),
      options_(std::move(options)),
      script_(options_.script) {
  engine_ = make_engine_();
  playing_.store(options_.start_playing, std::memory_order_release);
  steps_per_second_ = options_.steps_per_second;
  publish(true);
  thread_ = std::thread([this] {
    if (options_.max_threads > 0) {
      tbb::task_arena arena(options_.max_threads);
      arena.execute([this] { run(); });
    } else {
      run();
    }
  });
}

runner::~runner() {
  {
    std::lock_guard lock(queue_mutex_);
    stop_ = true;
  }
  queue_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void runner::post(runner_command command) {
  {
    std::lock_guard lock(queue_mutex_);
    queue_.push_back(std::move(command));
    ++posted_;
  }
  queue_cv_.notify_one();
}

std::shared_ptr<const engine_snapshot> runner::latest() const {
  std::lock_guard lock(latest_mutex_);
  return latest_;
}

std::shared_ptr<const engine_snapshot> runner::sync() {
  std::uint64_t target = 0;
  {
    std::lock_guard lock(queue_mutex_);
    target = posted_;
  }
  queue_cv_.notify_one();
  std::unique_lock lock(sync_mutex_);
  published_cv_.wait(lock, [&] {
    return published_commands_.load(std::memory_order_acquire) >= target;
  });
  return latest();
}

std::shared_ptr<const engine_snapshot> runner::wait_until(
    const std::function<bool(const engine_snapshot&)>& done, std::chrono::milliseconds limit) {
  std::shared_ptr<const engine_snapshot> seen;
  std::unique_lock lock(sync_mutex_);
  // Every publish notifies published_cv_ after taking sync_mutex_, so none is missed.
  published_cv_.wait_for(lock, limit, [&] {
    auto now = latest();
    if (now == seen) return false;
    seen = std::move(now);
    return done(*seen);
  });
  return seen;
}

void runner::apply(const runner_command& command, bool scripted) {
  log_.push_back({engine_->steps_done(), command});
  const bool reset = std::holds_alternative<reset_command>(command);
  if (!scripted) {
    std::visit(
        [this](const auto& c) {
          using T = std::decay_t<decltype(c)>;
          if constexpr (std::is_same_v<T, play_command>) {
            playing_.store(!broken_, std::memory_order_release);  // a stopped engine needs a reset
          } else if constexpr (std::is_same_v<T, pause_command>) {
            playing_.store(false, std::memory_order_release);
            pending_steps_ = 0;
          } else if constexpr (std::is_same_v<T, step_command>) {
            playing_.store(false, std::memory_order_release);
            pending_steps_ += c.steps;
          } else if constexpr (std::is_same_v<T, speed_command>) {
            steps_per_second_ = c.steps_per_second;
          }
        },
        command);
    if (reset) script_.abandon();  // the front end took over
  }
  try {
    apply_to_engine(command, engine_, make_engine_);
  } catch (const std::exception& e) {
    // The engine is unchanged (a reset builds the new one before replacing the old).
    fail(std::string("reset failed: ") + e.what());
    return;
  }
  if (reset) {
    unpublished_.clear();
    unpublished_requests_.clear();
    request_chunks_.clear();
    requests_completed_ = 0;
    chunks_.clear();
    chunked_steps_ = 0;
    ++generation_;
    pending_steps_ = 0;
    stepping_seconds_ = 0;
    broken_ = false;
    error_.clear();
  }
}

bool runner::apply_script() {
  bool applied = script_.apply_due(engine_, broken_, [this](const runner_command& c) { apply(c, true); });
  if (script_.done() && options_.script_steps > 0 && !script_paused_ &&
      engine_->steps_done() >= options_.script_steps) {
    script_paused_ = true;
    playing_.store(false, std::memory_order_release);
    pending_steps_ = 0;
    applied = true;
  }
  return applied;
}

void runner::fail(std::string why) {
  error_ = std::move(why);
  broken_ = true;
  playing_.store(false, std::memory_order_release);
  pending_steps_ = 0;
}

void runner::publish(bool force) {
  const auto now = std::chrono::steady_clock::now();
  force = force || publish_pending_;
  if (!force && now - last_publish_ < options_.snapshot_interval) return;
  publish_pending_ = false;
  last_publish_ = now;
  auto snapshot = std::make_shared<engine_snapshot>();
  fill_from_engine(*snapshot, *engine_);
  if (force || !pool_ || now >= next_pool_) {
    // Its cost grows with the pool (a 262,144-frame pool is ~20 MB to fill): space them so
    // they take at most pool_view_share of the engine's time, and never more often than
    // snapshots.
    pool_ = std::make_shared<const pool_view>(engine_->view_pool());
    const auto cost = std::chrono::steady_clock::now() - now;
    const auto spacing = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        cost / std::max(options_.pool_view_share, 1e-3));
    next_pool_ = now + std::max<std::chrono::steady_clock::duration>(options_.snapshot_interval, spacing);
  }
  snapshot->pool = pool_;
  if (!unpublished_.empty()) {
    chunked_steps_ += unpublished_.size();
    chunks_.push_back(std::make_shared<const std::vector<step_metrics>>(unpublished_));
    while (chunked_steps_ - chunks_.front()->size() >= recent_metrics_capacity) {
      chunked_steps_ -= chunks_.front()->size();
      chunks_.pop_front();
    }
  }
  snapshot->new_metrics = std::move(unpublished_);
  unpublished_.clear();
  snapshot->recent_chunks.assign(chunks_.begin(), chunks_.end());
  snapshot->generation = generation_;
  if (!unpublished_requests_.empty()) {
    // Kept even when the swap below fails: the next snapshot carries them.
    requests_completed_ += unpublished_requests_.size();
    append_requests(request_chunks_, std::move(unpublished_requests_));
    unpublished_requests_.clear();
  }
  snapshot->request_chunks = request_chunks_;
  snapshot->requests_completed = requests_completed_;
  snapshot->command_log = log_;
  snapshot->playing = playing_.load(std::memory_order_acquire);
  snapshot->summary = std::make_shared<const run_summary>(summarize(*engine_, {}, stepping_seconds_));
  snapshot->error = error_;
  {
    std::unique_lock swap_lock(latest_mutex_, std::try_to_lock);
    if (!swap_lock.owns_lock()) {
      // A reader is copying the pointer right now: keep the steps and retry at the next step
      // boundary rather than wait for it.
      if (!snapshot->new_metrics.empty()) {
        chunked_steps_ -= chunks_.back()->size();
        chunks_.pop_back();
      }
      unpublished_ = std::move(snapshot->new_metrics);
      publish_pending_ = true;
      return;
    }
    std::shared_ptr<const engine_snapshot> fresh = std::move(snapshot);
    latest_.swap(fresh);
    snapshot.reset();
    // `fresh` now holds the previous snapshot; it is released after the lock, below.
    swap_lock.unlock();
  }
  published_commands_.store(applied_, std::memory_order_release);
  { std::lock_guard lock(sync_mutex_); }  // pairs with the waiter's predicate check
  published_cv_.notify_all();
}

void runner::run() {
  using clock = std::chrono::steady_clock;
  auto next_step_at = clock::now();
  for (;;) {
    // Drain commands without ever waiting for the lock: a front end holding it is skipped this
    // round and its commands apply at the next step boundary.
    std::deque<runner_command> commands;
    bool stopping = false;
    if (std::unique_lock lock(queue_mutex_, std::try_to_lock); lock.owns_lock()) {
      commands.swap(queue_);
      stopping = stop_;
    }
    if (stopping) return;
    for (const auto& c : commands) apply(c, false);
    applied_ += commands.size();
    const bool scripted = apply_script();

    const bool want_step = playing_.load(std::memory_order_acquire) || pending_steps_ > 0;
    if (want_step && !broken_ && !engine_->finished()) {
      if (steps_per_second_ > 0) {
        const auto now = clock::now();
        if (now < next_step_at) {
          std::unique_lock lock(queue_mutex_);
          queue_cv_.wait_until(lock, next_step_at, [&] { return stop_ || !queue_.empty(); });
          continue;
        }
        next_step_at = std::max(next_step_at, now - std::chrono::milliseconds(100)) +
                       std::chrono::duration_cast<clock::duration>(
                           std::chrono::duration<double>(1.0 / steps_per_second_));
      }
      const auto started = clock::now();
      bool stepped = false;
      try {
        stepped = engine_->step();
      } catch (const std::exception& e) {
        // A load that fails while streaming (a bad row further on, a read error): stop here
        // and say why rather than take the process down.
        fail(e.what());
        publish(true);
        continue;
      }
      stepping_seconds_ += std::chrono::duration<double>(clock::now() - started).count();
      if (stepped) unpublished_.push_back(engine_->last_metrics());
      if (pending_steps_ > 0) --pending_steps_;
      if (engine_->finished()) playing_.store(false, std::memory_order_release);
      publish(!commands.empty() || scripted || (pending_steps_ == 0 && !playing_.load()));
      continue;
    }

    // Idle: show the latest state, then sleep until a command arrives (or retry the publish).
    publish(true);
    std::unique_lock lock(queue_mutex_);
    if (publish_pending_) {
      queue_cv_.wait_for(lock, std::chrono::milliseconds(1));
    } else {
      queue_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    }
  }
}

}  // namespace kvscope

namespace kvscope {

std::unique_ptr<runner> start_live_run(const run_description& run, runner_options options) {
  options.script = run.commands;
  options.script_steps = run.steps;
  return std::make_unique<runner>([run] { return make_engine(run); }, std::move(options));
}

}  // namespace kvscope
