#pragma once
// The runner owns the engine's thread. Front ends post commands and pick up snapshots; the engine
// never waits on a front end (docs/ARCHITECTURE.md, "The engine"): it drains the command queue and swaps in a new
// snapshot with try_lock only, and when a reader happens to hold the lock (for the few
// nanoseconds of a pointer copy) it simply tries again at the next step boundary.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "run/command_script.hpp"
#include "run/commands.hpp"
#include "run/run_description.hpp"
#include "run/snapshot.hpp"

namespace kvscope {

class engine;

struct runner_options {
  bool start_playing = false;
  double steps_per_second = 0;                    // 0 = as fast as possible
  std::chrono::milliseconds snapshot_interval{33};  // ~30 snapshots a second at most
  // The most of the engine thread's time that building pool views (every frame of the pool,
  // every block table) may take: on a big pool they are rebuilt less often than snapshots are
  // published, and the snapshots in between share the last one. A forced publish (a command
  // applied, a pause, a step) always takes a new one.
  double pool_view_share = 0.05;
  // Threads the engine's parallel work (quantization, migration, quality) may use, in a task
  // arena of its own; 0 = all cores. A GUI leaves itself a core: on few cores, sharing every
  // core with a redrawing front end stalls each parallel step on a worker the front end delays.
  int max_threads = 0;
  // A session's command log to replay live: each command is applied before the step it names,
  // exactly as replay() does, and logged again (so the run saves as the same session). Only
  // its effect on the engine counts (reconfigure, reset); its play/pause/step/speed are logged
  // but leave the front end in control. A reset posted by a front end drops what is left.
  std::vector<logged_command> script{};
  // With a script: once it is applied, pause when the engine has run this many steps (the
  // session's saved step); 0 = keep going.
  std::uint64_t script_steps = 0;
};

class runner;

// The live mode of the run service: `run` on a runner, its command log replayed as a script
// that pauses at its saved step (options.script and script_steps are taken from `run`).
std::unique_ptr<runner> start_live_run(const run_description& run, runner_options options = {});

class runner final : public engine_feed {
 public:
  // Makes a fresh engine: called once at start (what it throws, the constructor throws) and
  // again on every reset_command (what it throws then stops the engine: engine_snapshot::error).
  using engine_factory = std::function<std::unique_ptr<engine>()>;

  runner(engine_factory make_engine, runner_options options = {});
  ~runner() override;  // stops the thread
  runner(const runner&) = delete;
  runner& operator=(const runner&) = delete;

  void post(runner_command command) override;
  std::shared_ptr<const engine_snapshot> latest() const override;

  // Blocks until the engine thread has published a snapshot that reflects every command posted
  // before this call (for tests and batch front ends; a GUI never calls it).
  std::shared_ptr<const engine_snapshot> sync();

  // Blocks until a published snapshot satisfies `done` (called with each new one, under a lock:
  // keep it short), or `limit` passes; returns the last snapshot seen. For tests and batch
  // front ends, which wait on events rather than sleep; a GUI never calls it.
  std::shared_ptr<const engine_snapshot> wait_until(
      const std::function<bool(const engine_snapshot&)>& done,
      std::chrono::milliseconds limit = std::chrono::seconds(60));

 private:
  void run();
  // Logs and applies one command; `scripted` ones only act on the engine (see runner_options).
  void apply(const runner_command& command, bool scripted);
  // Applies the script's commands due before the next step, and its final pause.
  bool apply_script();
  // Stops the engine with a reason; only a reset starts it again.
  void fail(std::string why);
  void publish(bool force);

  engine_factory make_engine_;
  runner_options options_;
  std::unique_ptr<engine> engine_;

  mutable std::mutex queue_mutex_;
  std::condition_variable queue_cv_;
  std::deque<runner_command> queue_;
  std::uint64_t posted_ = 0;  // commands ever posted (guarded by queue_mutex_)
  bool stop_ = false;

  std::mutex sync_mutex_;
  std::condition_variable published_cv_;
  std::atomic<std::uint64_t> published_commands_{0};  // commands reflected in latest()
  std::uint64_t applied_ = 0;                          // engine thread only

  std::vector<logged_command> log_;  // engine thread only; copied into snapshots
  command_script script_;            // engine thread only: options_.script still to apply
  bool script_paused_ = false;       // the pause at options_.script_steps happened
  bool broken_ = false;              // the engine threw: no more steps until a reset
  std::string error_;                // why, for snapshots
  double stepping_seconds_ = 0;      // wall time inside engine::step() since the engine was made

  mutable std::mutex latest_mutex_;  // guards latest_: readers copy it, the engine try_locks
  std::shared_ptr<const engine_snapshot> latest_;
  bool publish_pending_ = false;  // a forced publish found the lock taken: retry
  std::vector<step_metrics> unpublished_;
  // Requests completed since the last publish (the engine's sink fills it), and all of them
  // before, in chunks whose sizes at least halve from oldest to newest (so there are at most
  // log2(n) of them to copy into a snapshot).
  std::vector<request_record> unpublished_requests_;
  std::vector<std::shared_ptr<const std::vector<request_record>>> request_chunks_;
  std::uint64_t requests_completed_ = 0;
  std::deque<std::shared_ptr<const std::vector<step_metrics>>> chunks_;  // recent, oldest first
  std::size_t chunked_steps_ = 0;
  std::uint64_t generation_ = 0;
  std::chrono::steady_clock::time_point last_publish_{};
  std::shared_ptr<const pool_view> pool_;  // the newest pool view (engine thread only)
  std::chrono::steady_clock::time_point next_pool_{};  // when a new one is due
  std::atomic<bool> playing_{false};
  std::uint32_t pending_steps_ = 0;
  double steps_per_second_ = 0;
  std::thread thread_;
};

}  // namespace kvscope
