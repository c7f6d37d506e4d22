#pragma once
// Builders shared by the GUI tests: real runners on a small generated load (tiny model,
// accounting mode, paused until a test says otherwise), a window around one, a hand-made
// snapshot for widget tests, and a feed double for the bridge's own edge cases.
#include <QString>

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "run/commands.hpp"
#include "run/runner.hpp"
#include "io/session_file.hpp"
#include "run/snapshot.hpp"

namespace kvscope::ui {
class MainWindow;
}

namespace kvscope::test {

// A few hundred steps on the tiny model in 4 MiB: fast, and it reaches q8 and q4.
inline constexpr const char* smallLoad =
    "gen:rate=30,prompt=lognormal:600:0.6,output=uniform:150:0.5,count=120,seed=3";
run_description smallSession(payload_mode payload = payload_mode::accounting);

// A runner for `s` (paused unless `playing`, as fast as possible).
std::unique_ptr<runner> makeTestRunner(const run_description& s, bool playing = false);

// A window (settings not persisted) around a paused runner on `s`; `feed` gets the runner.
std::unique_ptr<ui::MainWindow> makeWindow(const run_description& s, runner** feed = nullptr);

// Pumps the event loop until `done` or `timeout`; returns done().
bool waitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout = std::chrono::seconds(10));

// Steps the runner `n` steps (posting a step_command) and waits until the window's bridge has
// shown a snapshot at that step.
bool stepAndShow(ui::MainWindow& window, runner& feed, std::uint32_t n);

// Plays the window's run to its end (a minute at most) and lets its latency panel draw it;
// returns the newest snapshot.
std::shared_ptr<const engine_snapshot> playToEnd(ui::MainWindow& window, runner& feed);

// An engine_feed that records every command and serves whatever snapshot the test sets: only
// for the bridge's own edge cases (snapshot order), which a live engine cannot stage.
class RecordingFeed final : public engine_feed {
 public:
  explicit RecordingFeed(std::shared_ptr<const engine_snapshot> snapshot = nullptr);
  void post(runner_command command) override { log.push_back(std::move(command)); }
  std::shared_ptr<const engine_snapshot> latest() const override { return snapshot; }

  std::vector<runner_command> log;
  std::shared_ptr<const engine_snapshot> snapshot;
};

// A snapshot with `frames` free frames, default policy, one step of metrics, playing.
std::shared_ptr<engine_snapshot> emptySnapshot(std::uint32_t frames);

// The reconfigure commands of a log, oldest first.
std::vector<policy_config> reconfigures(const std::vector<runner_command>& log);
std::vector<policy_config> reconfigures(const std::vector<logged_command>& log);

}  // namespace kvscope::test
