#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "engine/engine.hpp"
#include "run/run_summary.hpp"
#include "run/runner.hpp"
#include "run/run_service.hpp"
#include "engine_test_support.hpp"
#include "load/load_error.hpp"

namespace kvscope {
namespace {

constexpr const char* runner_load = "gen:rate=30,prompt=lognormal:600:0.6,output=uniform:150:0.5,count=300,seed=3";

runner::engine_factory factory() {
  return [] {
    return std::make_unique<engine>(test::tiny_options(8ull << 20, payload_mode::accounting),
                                    test::gen_load(runner_load));
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
  // Five steps run, then the engine pauses by itself: a pause applied after them finds it at 5.
  EXPECT_EQ(r.wait_until([](const engine_snapshot& now) { return now.step >= 5; })->step, 5u);
  r.post(pause_command{});
  EXPECT_EQ(r.sync()->step, 5u);
  EXPECT_FALSE(r.latest()->playing);
}

TEST(Runner, PlayRunsToTheEndAndSnapshotsCarryEveryStepOnce) {
  runner r(factory(), runner_options{.start_playing = true});
  std::uint64_t seen = 0, last_step = 0;
  const auto end = r.wait_until([&](const engine_snapshot& s) {
    for (const auto& m : s.metrics_since(seen)) {
      EXPECT_EQ(m.step, seen);  // no gaps, no repeats
      ++seen;
    }
    last_step = s.step;
    return s.finished;
  });
  EXPECT_TRUE(end && end->finished);
  EXPECT_EQ(seen, last_step);
  EXPECT_GT(seen, 100u);
}

// A reader that holds a snapshot and takes ages must not slow the engine down: publishing
// swaps a pointer, it never waits for readers.
TEST(Runner, SlowReaderNeverBlocksTheEngine) {
  runner r(factory());
  r.post(pause_command{});
  const auto held = r.sync();  // held for the whole test
  // A reader hammering the snapshot lock, each copy kept a while.
  std::atomic<bool> stop{false};
  std::thread busy_reader([&] {
    std::vector<std::shared_ptr<const engine_snapshot>> kept;
    while (!stop) {
      kept.push_back(r.latest());
      if (kept.size() > 64) kept.clear();
    }
  });
  r.post(play_command{});
  const auto later = r.wait_until([](const engine_snapshot& s) { return s.step >= 200 || s.finished; });
  stop = true;
  busy_reader.join();
  EXPECT_GE(later->step, 200u);
  EXPECT_EQ(held->step, 0u);  // the held snapshot is immutable
}

// The pool view (every frame, every block table) is shared between snapshots and rebuilt at
// most at its time budget, but it is never missing, never from the future, and exact whenever
// the engine stops (a pause, a step): what a paused block map shows is the engine's state.
TEST(Runner, PoolViewsAreNeverNewerThanTheSnapshotAndExactWhenPaused) {
  const auto long_load = [] {
    return std::make_unique<engine>(
        test::tiny_options(8ull << 20, payload_mode::accounting),
        test::gen_load("gen:rate=30,prompt=lognormal:600:0.6,output=uniform:150:0.5,count=100000,seed=3"));
  };
  // Snapshots every millisecond, and a budget that spaces views at 1000 times their cost
  // (a 512-frame view takes well over a microsecond): views are shared while playing.
  runner r(long_load, runner_options{.start_playing = true,
                                     .snapshot_interval = std::chrono::milliseconds(1),
                                     .pool_view_share = 0.001});
  std::shared_ptr<const pool_view> previous_pool;
  std::size_t shared = 0, snapshots = 0;
  r.wait_until([&](const engine_snapshot& s) {
    EXPECT_TRUE(s.pool);
    if (!s.pool) return true;
    EXPECT_LE(s.pool->step, s.step);
    if (previous_pool) {
      ++snapshots;
      shared += s.pool == previous_pool;
    }
    previous_pool = s.pool;
    return snapshots >= 60;
  });
  r.post(pause_command{});
  auto s = r.sync();
  EXPECT_EQ(s->pool->step, s->step);
  r.post(step_command{3});
  const auto target = s->step + 3;
  const auto stepped = r.wait_until([&](const engine_snapshot& now) { return now.step >= target; });
  EXPECT_EQ(stepped->step, s->step + 3);
  EXPECT_EQ(stepped->pool->step, stepped->step);
  std::size_t used = 0;
  for (const frame_info& f : stepped->pool->frames.frames) used += !f.is_free();
  EXPECT_GT(used, 0u);
  EXPECT_EQ(stepped->pool->sequences.size(), stepped->latest.num_requests_running);
  EXPECT_GT(snapshots, 10u);
  EXPECT_GT(shared, 0u) << "views were rebuilt for every snapshot";
}

TEST(Runner, ResetStartsOverAndIsLogged) {
  runner r(factory());
  r.post(step_command{20});
  r.wait_until([](const engine_snapshot& s) { return s.step >= 20; });
  r.post(reset_command{});
  const auto s = r.sync();
  EXPECT_EQ(s->step, 0u);
  ASSERT_EQ(s->command_log.size(), 2u);
  EXPECT_EQ(s->command_log[1].step, 20u);
}

// Waits until the runner has stopped stepping on its own.
std::shared_ptr<const engine_snapshot> wait_until_paused(runner& r) {
  r.wait_until([](const engine_snapshot& s) { return !s.playing; });
  return r.sync();
}

// A session replayed live through the runner's script gives the metrics replay() gives, bit
// for bit, logs the same commands, and pauses at the saved step.
TEST(Runner, ScriptReplaysASessionLiveAndPausesAtItsStep) {
  run_description s;
  s.load_spec = runner_load;
  s.options = test::tiny_options(8ull << 20, payload_mode::accounting);
  s.commands = {{0, play_command{}},
                {30, reconfigure_command{*policy_preset("aggressive")}},
                {55, pause_command{}},
                {55, reset_command{}},
                {20, reconfigure_command{*policy_preset("fp16_only")}}};
  s.steps = 90;
  std::vector<std::string> expected;  // every step replay() runs: 55, then 90 after the reset
  run_hooks hooks;
  hooks.on_step = [&](const engine& e) { expected.push_back(metrics_csv_row(e.last_metrics())); };
  const auto reference = run_to_end(s, hooks).final_engine;
  ASSERT_EQ(expected.size(), 145u);

  const auto started = start_live_run(s, runner_options{.start_playing = true});
  runner& r = *started;
  const auto end = wait_until_paused(r);
  EXPECT_EQ(end->step, 90u);
  EXPECT_EQ(end->generation, 1u);
  EXPECT_EQ(metrics_csv_row(end->latest), metrics_csv_row(reference->last_metrics()));
  EXPECT_EQ(end->policy, *policy_preset("fp16_only"));
  ASSERT_EQ(end->command_log.size(), s.commands.size());
  for (std::size_t i = 0; i < s.commands.size(); ++i) {
    EXPECT_EQ(end->command_log[i].step, s.commands[i].step) << i;
    EXPECT_EQ(end->command_log[i].command.index(), s.commands[i].command.index()) << i;
  }
  // The steps after the reset, as the plots see them, match replay's.
  std::vector<std::string> live;
  for (const auto& m : end->metrics_since(0)) live.push_back(metrics_csv_row(m));
  EXPECT_EQ(live, std::vector<std::string>(expected.begin() + 55, expected.end()));
  // Going on from there is up to the front end.
  r.post(step_command{2});
  EXPECT_EQ(r.wait_until([](const engine_snapshot& now) { return now.step >= 92; })->step, 92u);
}

// A load that throws while streaming stops the engine with the reason in the snapshot; the
// process goes on and a reset starts over.
class failing_source final : public request_source {
 public:
  bool next(request& out) override {
    if (served_ == 40) throw load_error(load_error_kind::bad_input, "trace.csv:42: column 'x': bad", true);
    out = request{};
    out.id = served_;
    out.arrival_s = 0.02 * static_cast<double>(served_++);
    out.prompt_tokens = 100;
    out.output_tokens = 50;
    return true;
  }
  double progress() const noexcept override { return 0; }
  std::string_view format_name() const noexcept override { return "test"; }

 private:
  std::uint64_t served_ = 0;
};

TEST(Runner, ALoadFailingMidRunStopsTheEngineWithTheReason) {
  runner r([] {
    return std::make_unique<engine>(test::tiny_options(8ull << 20, payload_mode::accounting),
                                    std::make_unique<failing_source>());
  }, runner_options{.start_playing = true});
  const auto s = wait_until_paused(r);
  EXPECT_EQ(s->error, "trace.csv:42: column 'x': bad");
  EXPECT_FALSE(s->playing);
  EXPECT_GT(s->step, 0u);
  r.post(play_command{});
  EXPECT_EQ(r.sync()->step, s->step) << "no steps after a failure";
  r.post(reset_command{});
  const auto after = r.sync();
  EXPECT_TRUE(after->error.empty());
  EXPECT_EQ(after->step, 0u);
}

TEST(Runner, SnapshotsCarryTheRunSummary) {
  runner r(factory());
  r.post(step_command{25});
  r.wait_until([](const engine_snapshot& now) { return now.step >= 25; });
  const auto s = r.sync();
  ASSERT_TRUE(s->summary);
  EXPECT_EQ(s->summary->steps, 25u);
  EXPECT_EQ(s->summary->model, "tiny");
  EXPECT_EQ(s->summary->level_transitions, s->latest.level_transitions_total);
  EXPECT_GT(s->summary->wall_seconds, 0.0);
}

// An engine confined to one thread (a task arena of its own) gives the same metrics as one
// free to use every core.
TEST(Runner, MaxThreadsLeavesTheMetricsUnchanged) {
  run_description s;
  s.load_spec = runner_load;
  s.options = test::tiny_options(8ull << 20, payload_mode::data);
  std::vector<std::string> rows[2];
  for (int i = 0; i < 2; ++i) {
    runner_options o{.start_playing = true};
    o.max_threads = i == 0 ? 1 : 0;
    o.script_steps = 120;
    o.script = {{0, reconfigure_command{*policy_preset("aggressive")}}};
    runner r([&s] { return make_engine(s); }, o);
    const auto end = wait_until_paused(r);
    ASSERT_EQ(end->step, 120u);
    for (const auto& m : end->metrics_since(0)) rows[i].push_back(metrics_csv_row(m));
  }
  EXPECT_EQ(rows[0], rows[1]);
}

// Requests that can never fit are in the snapshot: their count and the newest few reasons.
TEST(Runner, SnapshotsSayWhichRequestsWereRejectedAndWhy) {
  // 1 MiB holds 64 blocks of 16 tokens on the tiny model: 20,000-token prompts never fit, even in q4.
  const std::string spec = "gen:rate=50,prompt=fixed:20000,output=fixed:4,count=12,seed=1";
  runner r([&] {
    return std::make_unique<engine>(test::tiny_options(1ull << 20, payload_mode::accounting), test::gen_load(spec));
  }, runner_options{.start_playing = true});
  const auto end = r.wait_until([](const engine_snapshot& s) { return s.finished; });
  ASSERT_TRUE(end && end->finished);
  EXPECT_EQ(end->rejected_total, 12u);
  ASSERT_EQ(end->recent_rejections.size(), recent_rejections_capacity);
  EXPECT_EQ(end->recent_rejections.back().request_id, 11u) << "the newest last";
  EXPECT_NE(end->recent_rejections.back().reason.find("20"), std::string::npos)
      << "names the length: " << end->recent_rejections.back().reason;
}

// Every completed request reaches the snapshots once, in completion order, whatever snapshots
// a reader skipped; they are the records run_to_end hands its on_request hook, and a reset
// starts the list again.
TEST(Runner, SnapshotsCarryEveryCompletedRequestOnce) {
  std::vector<request_record> expected_records;
  run_hooks hooks;
  hooks.on_request = [&](const request_record& r) { expected_records.push_back(r); };
  (void)run_to_end(test::tiny_options(8ull << 20, payload_mode::accounting), test::gen_load(runner_load), hooks);
  ASSERT_GT(expected_records.size(), 100u);

  runner r(factory(), runner_options{.start_playing = true});
  std::vector<request_record> seen;
  const auto end = r.wait_until([&](const engine_snapshot& s) {
    EXPECT_EQ(s.requests_completed, s.requests_since(0).size());
    for (const auto& rec : s.requests_since(seen.size())) seen.push_back(rec);
    return s.finished;
  });
  ASSERT_TRUE(end && end->finished);
  EXPECT_LE(end->request_chunks.size(), 12u);  // merged: sizes at least halve along the list
  ASSERT_EQ(seen.size(), expected_records.size());
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].request_id, expected_records[i].request_id);
    EXPECT_EQ(seen[i].finish_s, expected_records[i].finish_s);
    EXPECT_EQ(seen[i].outcome, expected_records[i].outcome);
  }
  r.post(reset_command{});
  const auto after = r.sync();
  EXPECT_EQ(after->requests_completed, 0u);
  EXPECT_TRUE(after->request_chunks.empty());
}

}  // namespace
}  // namespace kvscope
