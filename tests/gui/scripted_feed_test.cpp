// The stand-in feed (ScriptedEngine/ScriptedFeed), the bridge and the metric history.
#include <QSignalSpy>

#include <gtest/gtest.h>

#include <map>

#include "engine_bridge.hpp"
#include "gui_test_support.hpp"
#include "metric_history.hpp"
#include "scripted_engine.hpp"
#include "scripted_feed.hpp"

namespace kvscope::ui {
namespace {

// Runs the demo until `seconds` of simulated time, returning the first time each level was
// reached and the last time it changed.
struct LevelTimes {
  std::map<precision, double> first;
  std::vector<std::pair<double, precision>> changes;
};
LevelTimes runDemo(double seconds, ScriptedEngine& engine) {
  LevelTimes out;
  precision last = engine.last_metrics().level;
  while (engine.sim_time() < seconds) {
    engine.step();
    const auto& m = engine.last_metrics();
    if (!out.first.count(m.level)) out.first[m.level] = m.sim_time_s;
    if (m.level != last) out.changes.emplace_back(m.sim_time_s, m.level);
    last = m.level;
  }
  return out;
}

TEST(ScriptedEngine, DemoClimbsThroughBothThresholdsAndFallsBackWithinAMinute) {
  ScriptedEngine engine;
  const LevelTimes t = runDemo(60.0, engine);
  ASSERT_TRUE(t.first.count(precision::q8));
  ASSERT_TRUE(t.first.count(precision::q4));
  EXPECT_LT(t.first.at(precision::q8), t.first.at(precision::q4));
  ASSERT_FALSE(t.changes.empty());
  EXPECT_EQ(t.changes.back().second, precision::fp16) << "back to fp16 by 60 s";
}

TEST(ScriptedEngine, SameSeedSameMetrics) {
  ScriptedEngine a, b;
  for (int i = 0; i < 900; ++i) {
    a.step();
    b.step();
    ASSERT_EQ(a.last_metrics().bytes_per_level, b.last_metrics().bytes_per_level) << i;
    ASSERT_EQ(a.last_metrics().pressure_ewma, b.last_metrics().pressure_ewma) << i;
  }
  EXPECT_EQ(a.snapshot().frames.frames, b.snapshot().frames.frames);
}

// Every block table entry points at a live slot of the right tier, refcounts equal the number
// of references, and the byte accounting adds up to the budget.
TEST(ScriptedEngine, SnapshotsAreConsistent) {
  ScriptedEngine engine;
  for (int i = 0; i < 1100; ++i) {
    engine.step();
    if (i % 100 != 99) continue;
    const engine_snapshot s = engine.snapshot();
    std::map<std::pair<std::uint32_t, int>, int> refs;
    for (const auto& seq : s.sequences) {
      for (std::size_t l = 0; l < seq.block_table.size(); ++l) {
        const block_location& b = seq.block_table[l];
        ASSERT_LT(b.frame, s.frames.frames.size());
        const frame_info& f = s.frames.frames[b.frame];
        ASSERT_LT(b.slot, f.slot_count);
        EXPECT_EQ(b.tier, f.tier);
        EXPECT_GT(f.slots[b.slot].refcount, 0);
        EXPECT_EQ(f.slots[b.slot].logical_index, static_cast<std::int32_t>(l));
        EXPECT_EQ(b.shared, f.slots[b.slot].refcount > 1);
        ++refs[{b.frame, b.slot}];
      }
    }
    for (std::uint32_t fi = 0; fi < s.frames.frames.size(); ++fi) {
      const frame_info& f = s.frames.frames[fi];
      for (int sl = 0; sl < f.slot_count; ++sl) {
        const int expected = refs.count({fi, sl}) ? refs[{fi, sl}] : 0;
        EXPECT_EQ(f.slots[static_cast<std::size_t>(sl)].refcount, expected) << fi << ":" << sl;
      }
    }
    const step_metrics& m = s.latest;
    std::uint64_t sum = m.scale_bytes + m.free_bytes;
    for (auto b : m.bytes_per_level) sum += b;
    EXPECT_EQ(sum, s.budget_bytes);
    EXPECT_LE(m.kv_cache_usage_perc, 1.0);
  }
}

TEST(ScriptedFeed, ReaderGetsEveryStepBetweenTakes) {
  ScriptedFeed feed({}, ScriptedFeed::Mode::manual);
  feed.pump(10);
  auto first = feed.latest();
  ASSERT_EQ(first->new_metrics.size(), 10u);
  feed.pump(5);
  feed.pump(5);  // the reader did not look at the previous snapshot: it is carried over
  auto second = feed.latest();
  ASSERT_EQ(second->new_metrics.size(), 10u);
  EXPECT_EQ(second->new_metrics.front().step, first->new_metrics.back().step + 1);
  for (std::size_t i = 1; i < second->new_metrics.size(); ++i) {
    EXPECT_EQ(second->new_metrics[i].step, second->new_metrics[i - 1].step + 1);
  }
}

TEST(ScriptedFeed, AppliesAndLogsCommandsAtStepBoundaries) {
  ScriptedFeed feed({}, ScriptedFeed::Mode::manual);
  feed.pump(20);
  policy_config c;
  c.q8_threshold = 0.5f;
  c.q4_threshold = 0.7f;
  feed.post(reconfigure_command{c});
  feed.post(pause_command{});
  EXPECT_EQ(feed.pump(100), 0u) << "paused";
  EXPECT_EQ(feed.latest()->policy, c);
  feed.post(step_command{3});
  EXPECT_EQ(feed.pump(100), 3u);
  const auto log = feed.commandLog();
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0].step, 20u);
  EXPECT_TRUE(std::holds_alternative<reconfigure_command>(log[0].command));
  feed.setSeed(7);
  feed.post(reset_command{});
  feed.pump(0);
  EXPECT_EQ(feed.latest()->step, 0u);
}

TEST(ScriptedFeed, ThreadedFeedRunsAndStops) {
  ScriptedFeed feed({}, ScriptedFeed::Mode::threaded, 0);
  for (int i = 0; i < 200 && feed.latest()->step < 50; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GE(feed.latest()->step, 50u);
}

TEST(EngineBridge, EmitsOnlyNewSnapshotsAndDetectsResets) {
  auto* feed = new test::RecordingFeed(test::emptySnapshot(16));
  EngineBridge bridge{std::unique_ptr<engine_feed>(feed)};
  QSignalSpy ready(&bridge, &EngineBridge::snapshotReady);
  QSignalSpy reset(&bridge, &EngineBridge::historyReset);
  QSignalSpy policy(&bridge, &EngineBridge::enginePolicy);
  bridge.poll();
  bridge.poll();  // same object again: dropped
  EXPECT_EQ(ready.count(), 1);
  EXPECT_EQ(policy.count(), 1) << "the first snapshot tells the GUI the engine's policy";
  auto later = test::emptySnapshot(16);
  later->step = 10;
  feed->snapshot = later;
  bridge.poll();
  auto restarted = test::emptySnapshot(16);
  feed->snapshot = restarted;  // step 0 again
  bridge.poll();
  EXPECT_EQ(ready.count(), 3);
  EXPECT_EQ(reset.count(), 1);
}

TEST(EngineBridge, PostedPolicyIsNotPulledBackByOlderSnapshots) {
  auto* feed = new test::RecordingFeed(test::emptySnapshot(16));
  EngineBridge bridge{std::unique_ptr<engine_feed>(feed)};
  QSignalSpy policy(&bridge, &EngineBridge::enginePolicy);
  bridge.poll();
  policy_config mine;
  mine.q8_threshold = 0.6f;
  bridge.postPolicy(mine);
  ASSERT_EQ(test::reconfigures(feed->log).size(), 1u);
  auto old = test::emptySnapshot(16);
  old->step = 1;
  old->policy.q8_threshold = 0.7f;  // something in between, before ours was applied
  feed->snapshot = old;
  bridge.poll();
  EXPECT_EQ(policy.count(), 1) << "only the first one";
}

TEST(MetricHistory, ThinsOldPointsKeepsRecentAndTransitions) {
  MetricHistory h(100, 40);
  step_metrics m;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    m.step = i;
    m.sim_time_s = static_cast<double>(i);
    m.level = (i / 50) % 2 ? precision::q8 : precision::fp16;
    h.append(m);
  }
  EXPECT_LT(h.points().size(), 100u);
  EXPECT_EQ(h.stepsSeen(), 1000u);
  const auto& p = h.points();
  for (std::size_t i = p.size() - 40; i < p.size(); ++i) EXPECT_EQ(p[i].step, 1000 - p.size() + i);
  for (std::size_t i = 1; i < p.size(); ++i) EXPECT_LT(p[i - 1].t, p[i].t);
  EXPECT_EQ(h.transitions().size(), 19u);
}

}  // namespace
}  // namespace kvscope::ui
