#include "gui_test_support.hpp"

#include <QApplication>
#include <QElapsedTimer>
#include <QTest>

#include <gtest/gtest.h>

#include "jobs/engine_bridge.hpp"
#include "panels/latency_panel.hpp"
#include "window/main_window.hpp"
#include "common/run_setup.hpp"

namespace kvscope::test {

run_description smallSession(payload_mode payload) {
  run_description s;
  s.load_spec = smallLoad;
  s.options.model = "tiny";
  s.options.budget_bytes = 4ull << 20;
  s.options.payload = payload;
  s.options.quality_every = 10;
  return s;
}

std::unique_ptr<runner> makeTestRunner(const run_description& s, bool playing) {
  runner_options o;
  o.start_playing = playing;
  o.snapshot_interval = std::chrono::milliseconds(5);
  return ui::makeRunner(s, o);
}

std::unique_ptr<ui::MainWindow> makeWindow(const run_description& s, runner** feed) {
  auto r = makeTestRunner(s);
  if (feed) *feed = r.get();
  ui::MainWindow::Options o;
  o.persistSettings = false;
  o.pollIntervalMs = 10;
  return std::make_unique<ui::MainWindow>(std::move(r), s, 0.0, o);
}

bool waitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  QElapsedTimer clock;
  clock.start();
  while (!done()) {
    if (clock.elapsed() > timeout.count()) return false;
    QTest::qWait(2);  // events, then sleep: leave the engine the core
  }
  return true;
}

bool stepAndShow(ui::MainWindow& window, runner& feed, std::uint32_t n) {
  const std::uint64_t target = feed.latest()->step + n;
  feed.post(step_command{n});
  return waitFor([&] {
    window.bridge()->poll();
    const auto s = window.bridge()->current();
    return s && s->step >= target && !s->playing;
  });
}

std::shared_ptr<const engine_snapshot> playToEnd(ui::MainWindow& window, runner& feed) {
  feed.post(play_command{});
  const bool ended = waitFor([&] { return window.bridge()->current() && window.bridge()->current()->finished; },
                             std::chrono::seconds(60));
  if (!ended) ADD_FAILURE() << "the run did not end within a minute";
  window.latencyPanel()->redraw();
  return window.bridge()->current();
}

RecordingFeed::RecordingFeed(std::shared_ptr<const engine_snapshot> s)
    : snapshot(s ? std::move(s) : emptySnapshot(64)) {}

std::shared_ptr<engine_snapshot> emptySnapshot(std::uint32_t frames) {
  auto s = std::make_shared<engine_snapshot>();
  auto pool = std::make_shared<pool_view>();
  pool->frames.block_size = 16;
  pool->frames.frames.assign(frames, frame_info{});
  pool->frames.frame_bytes = 2u << 20;
  s->pool = pool;
  s->budget_bytes = std::uint64_t{frames} << 21;
  s->latest.free_bytes = s->budget_bytes;
  s->new_metrics.push_back(s->latest);
  s->playing = true;
  return s;
}

std::vector<policy_config> reconfigures(const std::vector<runner_command>& log) {
  std::vector<policy_config> out;
  for (const auto& c : log) {
    if (const auto* r = std::get_if<reconfigure_command>(&c)) out.push_back(r->config);
  }
  return out;
}

std::vector<policy_config> reconfigures(const std::vector<logged_command>& log) {
  std::vector<runner_command> commands;
  for (const auto& c : log) commands.push_back(c.command);
  return reconfigures(commands);
}

}  // namespace kvscope::test
