#pragma once
// STAND-IN for the engine runner (issue 5): an engine_feed that runs a ScriptedEngine on its own
// thread, takes runner_commands through a queue applied between steps, logs them with their
// step index, and publishes immutable snapshots. The lead swaps in the real runner; nothing in
// the widgets depends on this class (only MainWindow's seed box, see setSeed).
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/commands.hpp"
#include "scripted_engine.hpp"

namespace kvscope::ui {

class ScriptedFeed final : public engine_feed {
 public:
  enum class Mode { threaded, manual };
  // Starts playing at `steps_per_second` (0 = as fast as possible) in threaded mode; in manual
  // mode nothing runs until pump() is called (tests).
  explicit ScriptedFeed(const ScriptedEngineOptions& options = {}, Mode mode = Mode::threaded,
                        double steps_per_second = 20);
  ~ScriptedFeed() override;
  ScriptedFeed(const ScriptedFeed&) = delete;
  ScriptedFeed& operator=(const ScriptedFeed&) = delete;

  void post(runner_command command) override;
  // Also marks the snapshot as read: the next one carries every step's metrics since this one,
  // so a reader polling slower than the engine publishes still sees every step.
  std::shared_ptr<const engine_snapshot> latest() const override;

  // Manual mode: applies queued commands, then runs up to `max_steps` steps if playing (or
  // stepping), and publishes. Returns the steps run.
  std::uint64_t pump(std::uint64_t max_steps);
  // engine_feed has no seed command yet: the seed takes effect at the next reset_command.
  void setSeed(std::uint64_t seed);
  std::vector<logged_command> commandLog() const;
  const ScriptedEngineOptions& options() const { return options_; }
  static constexpr const char* description() { return "scripted demo load (stand-in for the engine)"; }

 private:
  using clock = std::chrono::steady_clock;
  void run();
  void apply(const runner_command& command);
  void stepOnce();
  void publish();

  ScriptedEngineOptions options_;
  ScriptedEngine engine_;
  Mode mode_;

  // Engine-thread state (or the caller's in manual mode).
  bool playing_ = true;
  double speed_ = 20;
  std::uint64_t steps_to_run_ = 0;  // > 0: a step_command in progress
  std::uint64_t generation_ = 0;    // resets so far
  clock::time_point next_step_{};
  clock::time_point last_publish_{};
  std::vector<step_metrics> since_publish_;

  mutable std::mutex commands_mutex_;
  std::condition_variable wake_;
  std::deque<runner_command> commands_;
  std::vector<logged_command> log_;
  std::uint64_t pending_seed_ = 0;
  bool seed_pending_ = false;
  bool stop_ = false;

  mutable std::mutex snapshot_mutex_;
  std::shared_ptr<const engine_snapshot> latest_;
  std::vector<step_metrics> unread_;  // metrics since the last snapshot a reader took
  std::size_t published_count_ = 0;   // of unread_, how many the current latest_ carries
  mutable bool taken_ = false;

  std::thread thread_;
};

}  // namespace kvscope::ui
