// The counters a tour states at every step (the slides' footer, the text's counters line) agree
// with what the narration says the step did: a prefix hit narrated as "B gets A's first three
// blocks" shows as "+3 this step", not only as a total since the start that the narration never
// mentions. The blocks each step reused are counted here from the states themselves.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tour/tour_run.hpp"
#include "tour/tour_script.hpp"
#include "tour/tour_text.hpp"

namespace kvscope {
namespace {

const tour_run& counted_tour() {
  static const tour_run run = [] {
    auto r = run_tour(builtin_tour());
    if (!r) throw std::runtime_error(r.error());
    return std::move(*r);
  }();
  return run;
}

// Blocks that sequences admitted by this step found in the pool: the leading entries of their
// block tables (a prefix hit is a prefix) that were already there the step before, cached or
// held by another sequence. (Not by frame: a revived block may be moved or quantized since.)
std::uint64_t reused_blocks(const tour_state& before, const tour_state& now) {
  std::uint64_t reused = 0;
  for (const tour_sequence& q : now.sequences) {
    if (before.sequence(q.id)) continue;  // running before: not admitted by this step
    for (const block_id id : q.table) {
      if (!before.block(id)) break;
      ++reused;
    }
  }
  return reused;
}

std::string prefix_hits_counter(const tour_state& s, const tour_state* before) {
  for (const std::string& c : tour_counters(s, before)) {
    if (c.starts_with("prefix hits")) return c;
  }
  return "(no prefix hits counter)";
}

TEST(TourCounters, PrefixHitsEachStepAreTheOnesItsNarrationTells) {
  const tour_run& run = counted_tour();
  ASSERT_EQ(run.frames.size(), 13u);
  // Step index -> what the narration says, and the blocks that is.
  const std::map<std::size_t, std::pair<std::string, std::uint64_t>> told = {
      {3, {"Its first three prompt blocks hash to the content of A's blocks", 3}},
      {8, {"Its first 8 blocks are found in the prefix cache", 8}},
      {11, {"12 of its 14 prompt tokens are a prefix hit", 3}},  // 4-token blocks
  };
  std::uint64_t total = 0;
  for (std::size_t i = 1; i < run.frames.size(); ++i) {
    const tour_state& before = run.frames[i - 1].state;
    const tour_state& now = run.frames[i].state;
    const std::uint64_t reused = reused_blocks(before, now);
    total += reused;
    const std::string counter = prefix_hits_counter(now, &before);
    const auto it = told.find(i);
    if (it == told.end()) {
      EXPECT_EQ(reused, 0u) << "step " << i + 1;
      EXPECT_EQ(counter, "prefix hits " + std::to_string(total) + " blocks") << "step " << i + 1;
      continue;
    }
    EXPECT_NE(run.script.steps[i].narration.find(it->second.first), std::string::npos) << "step " << i + 1;
    EXPECT_EQ(reused, it->second.second) << "step " << i + 1;
    EXPECT_EQ(counter, "prefix hits " + std::to_string(total) + " blocks (+" + std::to_string(reused) + " this step)")
        << "step " << i + 1;
  }
}

TEST(TourCounters, TheTextStatesTheSameCounters) {
  const tour_run& run = counted_tour();
  const std::string text = format_tour_step(run, 8);
  EXPECT_NE(text.find("counters: running 3, waiting 0, finished 1, preemptions 1, prefix hits 11 blocks (+8 this step), "
                      "evictions 0, blocks migrated 34 (+2 this step)"),
            std::string::npos)
      << text;
  // The first step has nothing before it: totals only.
  EXPECT_EQ(tour_counters(run.frames[0].state).size(), 7u);
  for (const std::string& c : tour_counters(run.frames[0].state)) EXPECT_EQ(c.find('+'), std::string::npos) << c;
}

}  // namespace
}  // namespace kvscope
