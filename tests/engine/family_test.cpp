// The policy families step by step on hand-computed cases (docs/policy.md, "Policy families"):
// two requests on the tiny model, blocks of 16 tokens (16 KiB at fp16: 256 groups of 32 values;
// q8 8 KiB + 512 B of scales, two to a frame; q4 4 KiB + 1 KiB of scales, four to a frame).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine_test_support.hpp"

namespace kvscope {
namespace {

using test::gen_load;
using test::tiny_options;

// Requests given in full, all arriving at 0.
class list_source final : public request_source {
 public:
  explicit list_source(std::vector<std::pair<std::uint32_t, std::uint32_t>> lengths)
      : lengths_(std::move(lengths)) {}
  bool next(request& out) override {
    if (served_ == lengths_.size()) return false;
    out = request{};
    out.id = served_;
    out.prompt_tokens = lengths_[served_].first;
    out.output_tokens = lengths_[served_].second;
    ++served_;
    return true;
  }
  double progress() const noexcept override { return 0; }
  std::string_view format_name() const noexcept override { return "test"; }

 private:
  std::vector<std::pair<std::uint32_t, std::uint32_t>> lengths_;
  std::size_t served_ = 0;
};

constexpr std::uint64_t frame = 16384;

// A: prompt 200, B: prompt 100, both prefilled in step 0; each later step decodes one token
// each, so after step k (k >= 0) A holds 200 + k tokens and B 100 + k. Hot tail 32 tokens.
engine_options family_options(policy_family family) {
  auto o = tiny_options(1ull << 20, payload_mode::accounting);
  o.tail_tokens = 32;
  o.prefix_caching = false;
  o.policy.family = family;
  o.policy.q8_age_tokens = 64;
  o.policy.q4_age_tokens = 128;
  o.policy.sink_tokens = 16;
  o.policy.recent_tokens = 64;
  return o;
}

std::unique_ptr<request_source> two_requests() {
  return std::make_unique<list_source>(std::vector<std::pair<std::uint32_t, std::uint32_t>>{{200, 40}, {100, 40}});
}

// The tiers of a cache sequence's blocks, "q4 q4 fp16 ...".
std::string tiers(const engine& e, sequence_id s) {
  std::string out;
  const auto table = *e.cache().block_table(s);
  for (const block_id b : table) {
    out += (out.empty() ? "" : " ") + std::string(tag(e.cache().pool().tier(b)));
  }
  return out;
}

// Runs steps 0..k.
void run_to(engine& e, std::uint64_t k) {
  while (e.steps_done() <= k) ASSERT_TRUE(e.step());
}

void expect_bytes(const engine& e, std::uint64_t fp16, std::uint64_t q8, std::uint64_t q4,
                  std::uint64_t scales) {
  const auto& m = e.last_metrics();
  EXPECT_EQ(m.bytes_per_level[0], fp16);
  EXPECT_EQ(m.bytes_per_level[1], q8);
  EXPECT_EQ(m.bytes_per_level[2], 0u);
  EXPECT_EQ(m.bytes_per_level[3], q4);
  EXPECT_EQ(m.scale_bytes, scales);
}

void expect_no_controller(const engine& e) {
  EXPECT_EQ(e.last_metrics().level_transitions_total, 0u);
  EXPECT_EQ(e.last_metrics().pressure_ewma, 0.0);
  EXPECT_EQ(e.policy().samples(), 0u);
}

TEST(Families, LengthsAreAsTheCasesAssume) {
  engine e(family_options(policy_family::ewma), two_requests());
  run_to(e, 0);
  EXPECT_EQ(*e.cache().length(0), 200u);
  EXPECT_EQ(*e.cache().length(1), 100u);
  run_to(e, 8);
  EXPECT_EQ(*e.cache().length(0), 208u);
  EXPECT_EQ(*e.cache().length(1), 108u);
  // Low pressure: the controller stays at fp16 and so does every block.
  EXPECT_EQ(e.last_metrics().level, precision::fp16);
  expect_bytes(e, 20 * frame, 0, 0, 0);
}

TEST(Families, StaticBornAtItsLevelThenMigratesBlocksLeavingTheTail) {
  auto o = family_options(policy_family::fixed);
  o.policy.fixed_level = precision::q8;
  engine e(o, two_requests());
  run_to(e, 0);
  // A (200): blocks 0..9 cold ((b+1)·16 + 32 <= 200); B (100): blocks 0..3. Born at q8.
  EXPECT_EQ(tiers(e, 0), "q8 q8 q8 q8 q8 q8 q8 q8 q8 q8 fp16 fp16 fp16");
  EXPECT_EQ(tiers(e, 1), "q8 q8 q8 q8 fp16 fp16 fp16");
  EXPECT_EQ(e.totals().migrated_blocks, 0u);
  expect_bytes(e, 6 * frame, 7 * frame, 0, 14 * 512);  // 14 q8 blocks in 7 frames
  EXPECT_EQ(e.last_metrics().level, precision::q8);
  run_to(e, 7);
  EXPECT_EQ(tiers(e, 0), "q8 q8 q8 q8 q8 q8 q8 q8 q8 q8 fp16 fp16 fp16");
  run_to(e, 8);  // A reaches 208 tokens: block 10 leaves the tail and migrates in this step
  EXPECT_EQ(tiers(e, 0), "q8 q8 q8 q8 q8 q8 q8 q8 q8 q8 q8 fp16 fp16");
  EXPECT_EQ(e.totals().migrated_blocks, 1u);
  // 15 q8 blocks (8 frames, one half empty), fp16: A 11..12 and B 4..6.
  expect_bytes(e, 5 * frame, 8 * frame, 0, 15 * 512);
  expect_no_controller(e);
}

TEST(Families, AgeMovesBlocksToQ8ThenQ4AsTheyAge) {
  engine e(family_options(policy_family::age), two_requests());
  run_to(e, 0);
  // A (200): ages 184 168 152 136 | 120 104 88 72 | 56 ...; B (100): ages 84 68 | 52 ...
  EXPECT_EQ(tiers(e, 0), "q4 q4 q4 q4 q8 q8 q8 q8 fp16 fp16 fp16 fp16 fp16");
  EXPECT_EQ(tiers(e, 1), "q8 q8 fp16 fp16 fp16 fp16 fp16");
  expect_bytes(e, 10 * frame, 3 * frame, 1 * frame, 4 * 1024 + 6 * 512);
  EXPECT_EQ(e.last_metrics().level, precision::q4);
  run_to(e, 7);
  EXPECT_EQ(e.totals().migrated_blocks, 0u);
  run_to(e, 8);  // A at 208: block 4 turns 128 old (q4), block 8 turns 64 old (q8)
  EXPECT_EQ(tiers(e, 0), "q4 q4 q4 q4 q4 q8 q8 q8 q8 fp16 fp16 fp16 fp16");
  EXPECT_EQ(tiers(e, 1), "q8 q8 fp16 fp16 fp16 fp16 fp16");
  EXPECT_EQ(e.totals().migrated_blocks, 2u);
  // q4: 5 blocks in 2 frames; q8: 6 blocks in 3 frames (block 8 took block 4's half);
  // fp16: A 9..12, B 2..6.
  expect_bytes(e, 9 * frame, 3 * frame, 2 * frame, 5 * 1024 + 6 * 512);
  run_to(e, 12);  // B at 112 (7 full blocks): its block 2 turns 64 old
  EXPECT_EQ(tiers(e, 1), "q8 q8 q8 fp16 fp16 fp16 fp16");
  EXPECT_EQ(e.totals().migrated_blocks, 3u);
  expect_no_controller(e);
}

TEST(Families, SinksAndRecentTokensStayFp16) {
  auto o = family_options(policy_family::sinks_recent);
  o.policy.fixed_level = precision::q4;
  engine e(o, two_requests());
  run_to(e, 0);
  // Block 0 holds the 16 sink tokens; A's blocks 8.. hold its last 64 (136..199), B's 2..
  // its last 64 (36..99).
  EXPECT_EQ(tiers(e, 0), "fp16 q4 q4 q4 q4 q4 q4 q4 fp16 fp16 fp16 fp16 fp16");
  EXPECT_EQ(tiers(e, 1), "fp16 q4 fp16 fp16 fp16 fp16 fp16");
  expect_bytes(e, 12 * frame, 0, 2 * frame, 8 * 1024);
  run_to(e, 8);  // A at 208: block 8 (128..143) leaves the last 64 tokens
  EXPECT_EQ(tiers(e, 0), "fp16 q4 q4 q4 q4 q4 q4 q4 q4 fp16 fp16 fp16 fp16");
  EXPECT_EQ(e.totals().migrated_blocks, 1u);
  expect_bytes(e, 11 * frame, 0, 3 * frame, 9 * 1024);
  EXPECT_EQ(e.last_metrics().level, precision::q4);
  expect_no_controller(e);
}

// On a busy random load with room to spare, after every step every block of every sequence is
// exactly at the level its family gives it at the sequence's length.
TEST(Families, EveryBlockAtItsFamilyLevelAfterEveryStep) {
  for (const auto family : {policy_family::fixed, policy_family::age, policy_family::sinks_recent}) {
    SCOPED_TRACE(std::string(family_name(family)));
    auto o = family_options(family);
    o.budget_bytes = 64ull << 20;
    o.migration_batch = 1u << 20;
    engine e(o, gen_load("gen:rate=40,prompt=lognormal:300:0.8,output=uniform:100:0.5,count=60,seed=5"));
    while (e.step()) {
      for (const sequence_id s : e.cache().sequences()) {
        const sequence_extent extent{*e.cache().length(s), 16, 32};
        const auto table = *e.cache().block_table(s);
        for (std::uint32_t b = 0; b < table.size(); ++b) {
          ASSERT_EQ(tag(e.cache().pool().tier(table[b])), tag(block_level(o.policy, precision::fp16, extent, b)))
              << "step " << e.steps_done() << " sequence " << s << " block " << b;
        }
      }
    }
    EXPECT_GT(e.totals().migrated_blocks, 0u);
    EXPECT_EQ(e.cache().audit(), "");
  }
}

TEST(Families, DataModeIsTheSameWhateverTheThreads) {
  for (const auto family : {policy_family::age, policy_family::sinks_recent}) {
    auto o = family_options(family);
    o.payload = payload_mode::data;
    o.quality_every = 7;
    o.migration_batch = 8;
    const char* load = "gen:rate=30,prompt=lognormal:300:0.6,output=uniform:80:0.5,count=40,seed=3";
    const auto one = test::run_rows_on(1, o, load);
    const auto two = test::run_rows_on(2, o, load);
    ASSERT_FALSE(one.empty());
    EXPECT_EQ(one, two);
  }
}

}  // namespace
}  // namespace kvscope
