#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/engine.hpp"
#include "engine/runner.hpp"
#include "engine_test_support.hpp"

namespace kvscope {
namespace {

using namespace std::chrono_literals;

constexpr const char* load = "gen:rate=30,prompt=lognormal:600:0.6,output=uniform:150:0.5,count=300,seed=3";

runner::engine_factory factory() {
  return [] {
    return std::make_unique<engine>(test::tiny_options(8ull << 20, payload_mode::accounting),
                                    test::gen_load(load));
  };
}

TEST(Runner, StepsOnlyWhenAskedAndLogsCommandsWithTheirStep) {
  runner r(factory());
  auto s = r.sync();
  EXPECT_EQ(s->step, 0u);
  r.post(reconfigure_command{*policy_preset("aggressive")});
  r.post(step_command{5});
  s = r.sync();
  // Paused: the reconfigure was applied before step 0 ran.
  ASSERT_EQ(s->command_log.size(), 2u);
  EXPECT_EQ(s->command_log[0].step, 0u);
  EXPECT_TRUE(std::holds_alternative<reconfigure_command>(s->command_log[0].command));
  EXPECT_EQ(s->policy, *policy_preset("aggressive"));
  // Five steps run, then the engine pauses by itself.
  for (int i = 0; i < 200 && r.latest()->step < 5; ++i) std::this_thread::sleep_for(5ms);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(r.latest()->step, 5u);
  EXPECT_FALSE(r.latest()->playing);
}

TEST(Runner, PlayRunsToTheEndAndSnapshotsCarryEveryStepOnce) {
  runner r(factory(), runner_options{.start_playing = true});
  std::uint64_t seen = 0, last_step = 0;
  std::shared_ptr<const engine_snapshot> previous;
  for (int i = 0; i < 4000; ++i) {
    auto s = r.latest();
    if (s != previous) {
      for (const auto& m : s->metrics_since(seen)) {
        EXPECT_EQ(m.step, seen);  // no gaps, no repeats
        ++seen;
      }
      last_step = s->step;
      previous = s;
      if (s->finished) break;
    }
    std::this_thread::sleep_for(2ms);
  }
  EXPECT_TRUE(previous && previous->finished);
  EXPECT_EQ(seen, last_step);
  EXPECT_GT(seen, 100u);
}

// A reader that holds a snapshot and takes ages must not slow the engine down: publishing
// swaps a pointer, it never waits for readers.
TEST(Runner, SlowReaderNeverBlocksTheEngine) {
  runner r(factory());
  r.post(pause_command{});
  const auto held = r.sync();  // held for the whole test
  std::atomic<bool> stop{false};
  std::thread slow_reader([&] {
    while (!stop) {
      auto s = r.latest();
      std::this_thread::sleep_for(50ms);  // "rendering"
    }
  });
  r.post(play_command{});
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t steps = 0;
  while (std::chrono::steady_clock::now() - start < 300ms && !r.latest()->finished) {
    steps = r.latest()->step;
    std::this_thread::sleep_for(1ms);
  }
  stop = true;
  slow_reader.join();
  // In 300 ms with a reader asleep 50 ms at a time, the engine still ran hundreds of steps.
  EXPECT_GT(std::max(steps, r.latest()->step), 200u);
  EXPECT_EQ(held->step, 0u);  // the held snapshot is immutable
}

TEST(Runner, ResetStartsOverAndIsLogged) {
  runner r(factory());
  r.post(step_command{20});
  for (int i = 0; i < 500 && r.latest()->step < 20; ++i) std::this_thread::sleep_for(2ms);
  r.post(reset_command{});
  const auto s = r.sync();
  EXPECT_EQ(s->step, 0u);
  ASSERT_EQ(s->command_log.size(), 2u);
  EXPECT_EQ(s->command_log[1].step, 20u);
}

}  // namespace
}  // namespace kvscope
