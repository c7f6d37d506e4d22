// The guided tour: the built-in scenario reaches, step by step, the states its narration
// describes (each expected state written here by hand: block ids, refcounts, levels, free
// frames); re-running gives identical states; the text names every concept a lecture needs;
// bad scripts are refused naming the step and field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "tour/tour_run.hpp"
#include "tour/tour_script.hpp"
#include "tour/tour_text.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

using enum precision;

// One row of a block table as the narration describes it.
struct row {
  block_id id;
  precision level;
  int refcount;
  int fill;
};

const tour_sequence* running(const tour_state& s, const std::string& request) {
  for (const auto& q : s.sequences) {
    if (q.request_name == request) return &q;
  }
  return nullptr;
}

void expect_table(const tour_state& s, const std::string& request, const std::vector<row>& rows) {
  const tour_sequence* q = running(s, request);
  ASSERT_NE(q, nullptr) << "request " << request << " is not running at engine step " << s.engine_step;
  ASSERT_EQ(q->table.size(), rows.size()) << "request " << request;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const tour_block* b = s.block(q->table[i]);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->id, rows[i].id) << request << " logical block " << i;
    EXPECT_EQ(b->level, rows[i].level) << request << " block #" << b->id;
    EXPECT_EQ(b->refcount, rows[i].refcount) << request << " block #" << b->id;
    EXPECT_EQ(b->fill, rows[i].fill) << request << " block #" << b->id;
    EXPECT_FALSE(b->cached);
  }
}

// The first `n` entries of a request's table, by id.
void expect_table_starts(const tour_state& s, const std::string& request, const std::vector<block_id>& ids) {
  const tour_sequence* q = running(s, request);
  ASSERT_NE(q, nullptr) << request;
  ASSERT_GE(q->table.size(), ids.size());
  EXPECT_EQ(std::vector<block_id>(q->table.begin(), q->table.begin() + static_cast<long>(ids.size())), ids) << request;
}

std::vector<block_id> cached_ids(const tour_state& s) {
  std::vector<block_id> ids;
  for (const auto& b : s.blocks) {
    if (b.cached) ids.push_back(b.id);
  }
  return ids;
}

void expect_cached(const tour_state& s, block_id id, precision level) {
  const tour_block* b = s.block(id);
  ASSERT_NE(b, nullptr) << "#" << id;
  EXPECT_TRUE(b->cached) << "#" << id;
  EXPECT_EQ(b->refcount, 0) << "#" << id;
  EXPECT_EQ(b->level, level) << "#" << id;
}

class BuiltInTour : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto r = run_tour(builtin_tour());
    ASSERT_TRUE(r) << r.error();
    run = new tour_run(std::move(*r));
  }
  static void TearDownTestSuite() {
    delete run;
    run = nullptr;
  }
  static const tour_state& at(std::size_t step) { return run->frames.at(step).state; }
  static tour_run* run;
};
tour_run* BuiltInTour::run = nullptr;

TEST_F(BuiltInTour, HasThirteenStepsOnTheTinyModel) {
  ASSERT_EQ(run->frames.size(), 13u);
  EXPECT_EQ(run->script.options.model, "tiny");
  EXPECT_EQ(run->script.options.block_size, 4u);
  EXPECT_EQ(at(0).frames, 20u);
  EXPECT_EQ(at(0).frame_bytes, 4096u);
  EXPECT_EQ(run->script.requests.size(), 6u);
}

TEST_F(BuiltInTour, EmptyPoolThenAllocationAndDecode) {
  EXPECT_EQ(at(0).engine_step, 0u);
  EXPECT_TRUE(at(0).blocks.empty());
  EXPECT_EQ(at(0).free_frames, 20u);

  // A's 14-token prompt: four fp16 blocks, the last half full.
  expect_table(at(1), "A", {{0, fp16, 1, 4}, {1, fp16, 1, 4}, {2, fp16, 1, 4}, {3, fp16, 1, 2}});
  EXPECT_EQ(at(1).free_frames, 16u);

  // Two decoded tokens fill #3, the third opens #4.
  expect_table(at(2), "A", {{0, fp16, 1, 4}, {1, fp16, 1, 4}, {2, fp16, 1, 4}, {3, fp16, 1, 4}, {4, fp16, 1, 1}});
  EXPECT_EQ(at(2).free_frames, 15u);
}

TEST_F(BuiltInTour, SecondRequestSharesTheFullPrefixBlocksOnly) {
  const tour_state& s = at(3);
  expect_table(s, "B", {{0, fp16, 2, 4}, {1, fp16, 2, 4}, {2, fp16, 2, 4}, {5, fp16, 1, 2}});
  expect_table_starts(s, "A", {0, 1, 2, 3, 4});
  EXPECT_EQ(s.block(3)->refcount, 1);  // A's own block: never shared, no copy-on-write
  EXPECT_EQ(s.prefix_hit_tokens, 12u);
  EXPECT_EQ(s.shared_blocks(), 3u);
  EXPECT_EQ(s.free_frames, 14u);
}

TEST_F(BuiltInTour, PressureMovesColdBlocksToQ8AndKeepsTheTailInFp16) {
  const tour_state& s = at(4);
  EXPECT_EQ(s.level, q8);
  EXPECT_GE(s.ewma, 0.5);
  EXPECT_LT(s.ewma, 0.75);
  expect_table(s, "A", {{0, q8, 2, 4}, {1, q8, 2, 4}, {2, q8, 2, 4}, {3, q8, 1, 4}, {4, fp16, 1, 4}, {6, fp16, 1, 4}});
  expect_table(s, "C", {{8, q8, 1, 4}, {9, q8, 1, 4}, {10, q8, 1, 4}, {11, q8, 1, 4}, {12, fp16, 1, 4}, {13, fp16, 1, 4}});
  // Two q8 blocks share a frame.
  EXPECT_EQ(s.block(0)->frame, s.block(1)->frame);
  EXPECT_EQ(s.free_frames, 9u);
  ASSERT_TRUE(s.quant_error[ordinal(q8)]);
  EXPECT_LT(*s.quant_error[ordinal(q8)], 0.02);
}

TEST_F(BuiltInTour, MorePressureMovesThemToQ4AtAMeasuredCost) {
  const tour_state& s = at(5);
  EXPECT_EQ(s.level, q4);
  EXPECT_GE(s.ewma, 0.75);
  expect_table(s, "A", {{0, q4, 2, 4}, {1, q4, 2, 4}, {2, q4, 2, 4}, {3, q4, 1, 4}, {4, q4, 1, 4}, {6, q4, 1, 4},
                        {14, fp16, 1, 4}, {17, fp16, 1, 4}});
  // Four q4 blocks share a frame.
  for (block_id b : {1, 2, 3}) EXPECT_EQ(s.block(b)->frame, s.block(0)->frame);
  EXPECT_EQ(s.free_frames, 8u);
  EXPECT_EQ(s.waiting, 1u);  // D waits for room
  EXPECT_EQ(s.block_payload[ordinal(q4)], 1024u);
  EXPECT_EQ(s.block_scales[ordinal(q4)], 256u);
  ASSERT_TRUE(s.quant_error[ordinal(q4)]);
  EXPECT_GT(*s.quant_error[ordinal(q4)], 0.05);
  EXPECT_LT(*s.quant_error[ordinal(q4)], 0.2);
}

TEST_F(BuiltInTour, RunningOutOfMemoryPreemptsTheNewestSequence) {
  const tour_state& s = at(6);
  EXPECT_EQ(s.preemptions, 1u);
  EXPECT_EQ(running(s, "D"), nullptr);
  EXPECT_NE(running(s, "A"), nullptr);
  EXPECT_NE(running(s, "B"), nullptr);
  EXPECT_NE(running(s, "C"), nullptr);
  EXPECT_EQ(cached_ids(s), (std::vector<block_id>{22, 23, 24, 25, 26, 27, 28, 30}));
  EXPECT_EQ(s.free_frames, 1u);
  EXPECT_EQ(s.waiting, 1u);
}

TEST_F(BuiltInTour, FinishingFreesAndCachesFullBlocks) {
  const tour_state& s = at(7);
  EXPECT_EQ(s.finished, 1u);
  EXPECT_EQ(running(s, "A"), nullptr);
  for (block_id b : {0, 1, 2}) EXPECT_EQ(s.block(b)->refcount, 1) << b;  // B still reads them
  for (block_id b : {3, 4, 6, 14, 17, 20, 31}) EXPECT_TRUE(s.block(b) && s.block(b)->cached) << b;
  EXPECT_EQ(s.block(35), nullptr);  // A's partial last block: freed outright
  EXPECT_EQ(s.level, q8);           // below q4 - hysteresis
  EXPECT_EQ(s.free_frames, 1u);
}

TEST_F(BuiltInTour, ThePreemptedSequenceGetsItsCachedBlocksBack) {
  const tour_state& s = at(8);
  expect_table_starts(s, "D", {22, 23, 24, 25, 26, 27, 28, 30, 35});
  EXPECT_EQ(running(s, "D")->table.size(), 9u);
  EXPECT_EQ(running(s, "D")->tokens, 36u);
  EXPECT_EQ(s.block(22)->level, q4);
  EXPECT_EQ(s.block(22)->refcount, 1);
  EXPECT_EQ(s.free_frames, 1u);
}

TEST_F(BuiltInTour, TheSharedPrefixIsCachedOnceNobodyHoldsIt) {
  const tour_state& s = at(9);
  EXPECT_EQ(s.finished, 2u);
  for (block_id b : {0, 1, 2}) expect_cached(s, b, q4);

  const tour_state& done = at(10);
  EXPECT_TRUE(done.sequences.empty());
  EXPECT_EQ(done.pressure, 0.0);
  EXPECT_EQ(done.cached_blocks(), 40u);
  EXPECT_EQ(done.free_frames, 1u);
  EXPECT_EQ(done.level, fp16);
}

TEST_F(BuiltInTour, ALaterRequestHitsTheCachedPrefix) {
  const tour_state& s = at(11);
  expect_table(s, "E", {{0, q4, 1, 4}, {1, q4, 1, 4}, {2, q4, 1, 4}, {14, fp16, 1, 2}});
  EXPECT_EQ(s.prefix_hit_tokens - at(10).prefix_hit_tokens, 12u);
  EXPECT_EQ(s.evictions, at(10).evictions);  // the one free frame was enough
}

TEST_F(BuiltInTour, SpaceIsMadeByEvictingTheOldestCachedBlocks) {
  const tour_state& s = at(12);
  ASSERT_NE(running(s, "F"), nullptr);
  EXPECT_EQ(running(s, "F")->table.size(), 10u);
  for (block_id b : running(s, "F")->table) EXPECT_EQ(s.block(b)->level, fp16);
  EXPECT_EQ(s.evictions - at(11).evictions, 27u);
  EXPECT_EQ(s.cached_blocks(), 14u);
  for (block_id b : {0, 1, 2}) expect_cached(s, b, q4);  // E released them last: they survive
  EXPECT_EQ(s.free_frames, 0u);
}

TEST_F(BuiltInTour, EveryStepIsTheStateAFreshEngineReachesAtItsStepCount) {
  for (std::size_t i = 0; i < run->frames.size(); ++i) {
    const tour_state& kept = at(i);
    EXPECT_EQ(tour_state_at(run->script, kept.engine_step), kept) << "step " << i;
    EXPECT_EQ(run->frames[i].snapshot->step, kept.engine_step);
  }
}

TEST_F(BuiltInTour, RunningItAgainGivesIdenticalStepsForwardAndBack) {
  auto again = run_tour(run->script);
  ASSERT_TRUE(again) << again.error();
  ASSERT_EQ(again->frames.size(), run->frames.size());
  // Forward through the second run, then back through the first: every step equal.
  for (std::size_t i = 0; i < run->frames.size(); ++i) EXPECT_EQ(again->frames[i].state, at(i)) << i;
  for (std::size_t i = run->frames.size(); i-- > 0;) {
    EXPECT_EQ(again->frames[i].state, at(i)) << i;
    EXPECT_EQ(again->frames[i].focus, run->frames[i].focus) << i;
    EXPECT_EQ(again->frames[i].snapshot->pool->frames.frames, run->frames[i].snapshot->pool->frames.frames) << i;
  }
}

TEST_F(BuiltInTour, SnapshotsCarryEveryStepsMetricsSoFar) {
  for (const tour_frame& f : run->frames) {
    const auto metrics = f.snapshot->metrics_since(0);
    ASSERT_EQ(metrics.size(), f.state.engine_step);
    for (std::size_t i = 0; i < metrics.size(); ++i) EXPECT_EQ(metrics[i].step, i);
    EXPECT_FALSE(f.snapshot->playing);
  }
}

TEST_F(BuiltInTour, TextNamesEveryConceptOfTheLecture) {
  std::string text = format_tour_text(*run);
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* word : {"block table", "refcount", "prefix", "shared", "q8", "q4", "preempt", "freed",
                              "evict", "lru", "copy-on-write", "ewma", "step 13 of 13"}) {
    EXPECT_NE(text.find(word), std::string::npos) << word;
  }
}

TEST_F(BuiltInTour, FocusResolvesRequestsAndBlockSets) {
  // Step 4 highlights B and every shared block.
  EXPECT_EQ(run->frames[3].focus.blocks, (std::vector<block_id>{0, 1, 2}));
  ASSERT_EQ(run->frames[3].focus.sequences.size(), 1u);
  EXPECT_EQ(at(3).sequence(run->frames[3].focus.sequences[0])->request_name, "B");
  // Step 7 highlights D, which is waiting: named as absent.
  EXPECT_EQ(run->frames[6].focus.absent, (std::vector<std::string>{"D"}));
}

// --- scripts

std::string script_with_steps(const std::string& steps) {
  return R"({"requests": [{"name": "A", "prompt_tokens": 8, "output_tokens": 4}], "steps": )" + steps + "}";
}

std::string parse_error(const std::string& text) {
  auto r = parse_tour_script(text, "tour.json");
  return r ? std::string("(parsed)") : r.error();
}

TEST(TourScript, ErrorsNameTheStepAndTheField) {
  EXPECT_EQ(parse_error(script_with_steps(R"([{"steps": 1, "narration": 7}])")),
            "tour.json: field 'steps[0].narration': expected a string, got number");
  EXPECT_EQ(parse_error(script_with_steps(R"([{"steps": 1, "narration": "a"}, {"steps": 1}])")),
            "tour.json: field 'steps[1].narration': missing");
  EXPECT_EQ(parse_error(script_with_steps(R"([{"steps": 1, "narration": "a", "colour": "red"}])")),
            "tour.json: field 'steps[0].colour': unknown key");
  EXPECT_EQ(parse_error(script_with_steps(R"([{"until": {"level": "q5"}, "narration": "a"}])")),
            "tour.json: field 'steps[0].until.level': unknown level 'q5' (fp16, q8, fp8, q4)");
  EXPECT_NE(parse_error(script_with_steps(R"([{"until": {"preemption": 1}, "narration": "a"}])"))
                .find("tour.json: field 'steps[0].until.preemption': unknown condition"),
            std::string::npos);
  EXPECT_EQ(parse_error(
                script_with_steps(R"([{"steps": 1, "until": {"finished": 1}, "narration": "a"}])")),
            "tour.json: field 'steps[0]': give exactly one of \"steps\" (engine steps to run) and "
            "\"until\" (a condition)");
  EXPECT_EQ(parse_error(script_with_steps(
                R"([{"steps": 1, "narration": "a", "highlight": {"requests": ["Z"]}}])")),
            "tour.json: field 'steps[0].highlight.requests[0]': no request named 'Z'");
  EXPECT_EQ(
      parse_error(script_with_steps(R"([{"steps": 1, "narration": "a", "show": ["colours"]}])")),
      "tour.json: field 'steps[0].show[0]': unknown quantity 'colours' (see docs/tour.md)");
  EXPECT_EQ(parse_error(script_with_steps("[]")), "tour.json: field 'steps': empty");
  EXPECT_EQ(parse_error(R"({"steps": [{"steps": 1, "narration": "a"}]})"),
            "tour.json: field 'requests': give exactly one of \"requests\" (a list) and \"load\" "
            "(a gen: spec)");
  EXPECT_EQ(parse_error(R"({"engine": {"budget_frames": 0}, "load": "gen:count=3", "steps": []})"),
            "tour.json: field 'engine.budget_frames': at least 1");
  EXPECT_EQ(parse_error(R"({"engine": {"block_sise": 4}, "load": "gen:count=3", "steps": []})")
                .substr(0, 47),
            "tour.json: field 'engine.block_sise': unknown k");
  EXPECT_EQ(
      parse_error(
          R"({"policy": {"q8_threshold": 0.9, "q4_threshold": 0.5}, "load": "gen:count=3", "steps": []})"),
      "tour.json: field 'policy': q4_threshold must be >= q8_threshold");
  EXPECT_NE(parse_error("{").find("tour.json: invalid JSON"), std::string::npos);
}

TEST(TourScript, AConditionNeverReachedIsRefusedNamingTheStep) {
  auto script = parse_tour_script(
      script_with_steps(R"([{"steps": 1, "narration": "a"}, {"until": {"preemptions": 1, "max_steps": 50}, "narration": "b"}])"),
      "tour.json");
  ASSERT_TRUE(script) << script.error();
  auto r = run_tour(*script);
  ASSERT_FALSE(r);
  // The load ends (A finishes) long before 50 steps.
  EXPECT_EQ(r.error().rfind("tour.json: steps[1].until: every request has finished at engine step", 0), 0u) << r.error();

  auto capped = parse_tour_script(
      R"({"load": "gen:rate=10,count=50,seed=1", "steps": [{"until": {"preemptions": 1, "max_steps": 5}, "narration": "a"}]})",
      "tour.json");
  ASSERT_TRUE(capped) << capped.error();
  auto stuck = run_tour(*capped);
  ASSERT_FALSE(stuck);
  EXPECT_EQ(stuck.error(), "tour.json: steps[0].until: not reached within 5 engine steps (max_steps); at engine step 5: preemptions 0");
}

TEST(TourScript, ConditionsCompareChangesAndUpperBounds) {
  auto script = parse_tour_script(
      R"({"requests": [{"name": "A", "prompt_tokens": 8, "output_tokens": 6}],
          "steps": [{"until": {"free_frames_at_most": 21}, "narration": "a"},
                    {"until": {"new_engine_step": 3}, "narration": "b", "show": ["new_engine_step", "refcounts"]}]})",
      "t");
  ASSERT_TRUE(script) << script.error();
  auto r = run_tour(*script);
  ASSERT_TRUE(r) << r.error();
  // 24 frames: the 8-token prompt takes 2 blocks, the first decoded token a third.
  EXPECT_EQ(r->frames[0].state.engine_step, 2u);
  EXPECT_EQ(r->frames[0].state.free_frames, 21u);
  EXPECT_EQ(r->frames[1].state.engine_step, 5u);
  EXPECT_EQ(r->frames[1].numbers[0], "engine step +3 since the previous step (5 now)");
}

TEST(TourScript, TheBuiltInScriptReadsBackAsTheSameScript) {
  const tour_script a = builtin_tour();
  auto b = parse_tour_script(builtin_tour_json(), "built-in tour");
  ASSERT_TRUE(b) << b.error();
  EXPECT_EQ(a.steps, b->steps);
  EXPECT_EQ(a.requests, b->requests);
  EXPECT_EQ(a.steps.size(), 13u);
}

TEST(TourScript, TheExampleInTheDocsRuns) {
  const std::string doc = test::read_text(std::string(KVSCOPE_DOCS_DIR) + "/tour.md");
  const auto begin = doc.find("```json\n");
  ASSERT_NE(begin, std::string::npos);
  const auto end = doc.find("```", begin + 8);
  auto script = parse_tour_script(doc.substr(begin + 8, end - begin - 8), "docs/tour.md");
  ASSERT_TRUE(script) << script.error();
  auto r = run_tour(*script);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->frames.back().state.shared_blocks(), 3u);
}

TEST(TourText, WrapsAtSpaces) {
  EXPECT_EQ(wrap_text("one two three four", 9, "  "), "  one two\n  three\n  four\n");
}

// Found by fuzzing: a number past a double threw out of the parser (and ended the program).
TEST(TourScript, ANumberPastADoubleIsAnErrorNamingTheSource) {
  const auto t = parse_tour_script(R"({"steps": [{"run": 11222e2401122}]})", "t.json");
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().rfind("t.json: invalid JSON: ", 0), 0u) << t.error();
}

}  // namespace
}  // namespace kvscope
