// Where a request's time went, on hand-made steps: every part is the time the events say, and
// the parts add up to TTFT and to the decode time.
#include <gtest/gtest.h>

#include <vector>

#include "outcome/request_outcomes.hpp"
#include "outcome_recorder.hpp"
#include "outcome/slo_misses.hpp"

namespace kvscope {
namespace {

using test::recorder;

decode_shares whole(double s) { return {s, 0, 0}; }

// Request 1 arrives at 0.25 while a step runs, is queued at 0.5, waits one step (0.5..0.6) for
// memory and one (0.6..0.7) for batch slots, is admitted at 0.7 and prefills in two chunks (the
// second also recomputing after a preemption), then decodes.
TEST(LatencyParts, EveryStepGoesToOnePart) {
  recorder rec;
  request_outcomes o(rec.sink());
  const request_handle h = o.arrived(1, 0.25, 200, 4);
  o.sent(h, 0.5, 0.0, {0.05, 0.01});
  o.step_ended(whole(0.1), wait_cause::kv_memory);  // 0.5 .. 0.6
  o.step_ended(whole(0.1), wait_cause::batch_slots);  // 0.6 .. 0.7
  o.scheduled(h, 0.7);
  o.prefill_chunk(h, 0, 100, 0.02, 0.1);  // 0.7 .. 0.8: its chunk alone would take 0.02
  o.step_ended(whole(0.1), wait_cause::none);
  o.preempted(h, 100);
  o.step_ended(whole(0.2), wait_cause::kv_memory);  // 0.8 .. 1.0: waiting again
  o.scheduled(h, 1.0);
  o.prefill_chunk(h, 0, 200, 0.04, 0.2);  // 1.0 .. 1.2: half of it recomputes
  o.step_ended(whole(0.2), wait_cause::none);
  o.emitted(h, 1.2);  // the first token
  o.unscheduled(h, {0.01, 0.05, 0.01});  // 1.2 .. 1.27: others' chunks took the budget
  o.step_ended({0.01, 0.05, 0.01}, wait_cause::none);
  o.step_ended({0.02, 0.03, 0.005}, wait_cause::none);  // 1.27 .. 1.325
  o.emitted(h, 1.325);
  o.step_ended({0.02, 0, 0}, wait_cause::none);  // 1.325 .. 1.345
  o.emitted(h, 1.345);
  o.preempted(h, 203);
  o.step_ended(whole(0.1), wait_cause::kv_memory);  // 1.345 .. 1.445 waiting
  o.scheduled(h, 1.445);
  o.prefill_chunk(h, 0, 203, 0.03, 0.1);  // 1.445 .. 1.545 recomputing prompt and outputs
  o.step_ended(whole(0.1), wait_cause::none);
  o.emitted(h, 1.545);
  o.finished(h, 1.545);

  ASSERT_EQ(rec.rows.size(), 1u);
  const request_record& r = rec.rows[0];
  const latency_parts& p = r.parts;
  EXPECT_DOUBLE_EQ(p.arrival_step_s, 0.25);
  EXPECT_DOUBLE_EQ(p.wait_kv_memory_s, 0.1);
  EXPECT_DOUBLE_EQ(p.wait_batch_slots_s, 0.1);
  EXPECT_DOUBLE_EQ(p.wait_token_budget_s, 0);
  EXPECT_DOUBLE_EQ(p.wait_preempted_s, 0.2);
  EXPECT_DOUBLE_EQ(p.recompute_s, 0.1);
  EXPECT_DOUBLE_EQ(p.prefill_s, 0.02 + 0.02);
  EXPECT_DOUBLE_EQ(p.prefill_batched_s, 0.08 + 0.08);
  EXPECT_NEAR(p.ttft_sum(), r.ttft_s(), 1e-12);
  EXPECT_NEAR(p.decode_s, 0.02 + 0.02, 1e-12);
  EXPECT_NEAR(p.decode_prefill_s, 0.07 + 0.03, 1e-12);
  EXPECT_NEAR(p.decode_migration_s, 0.005, 1e-12);
  EXPECT_NEAR(p.decode_preempted_s, 0.2, 1e-12);
  EXPECT_NEAR(p.decode_sum(), r.finish_s - r.first_token_s, 1e-12);
  EXPECT_EQ(r.alone_ttft_s, 0.05);
  EXPECT_EQ(r.alone_tpot_s, 0.01);
}

TEST(LatencyParts, ARunningPrefillGivenNoTokensWaitsForTheBudget) {
  recorder rec;
  request_outcomes o(rec.sink());
  const request_handle h = o.arrived(1, 0, 20000, 1);
  o.sent(h, 0, 0, {});
  o.scheduled(h, 0);
  o.prefill_chunk(h, 0, 8192, 0.1, 0.1);
  o.step_ended(whole(0.1), wait_cause::none);
  o.unscheduled(h, {0.02, 0.1, 0});
  o.step_ended({0.02, 0.1, 0}, wait_cause::none);
  o.prefill_chunk(h, 8192, 20000, 0.12, 0.15);
  o.step_ended(whole(0.15), wait_cause::none);
  o.emitted(h, 0.37);
  o.finished(h, 0.37);
  const latency_parts& p = rec.rows.at(0).parts;
  EXPECT_DOUBLE_EQ(p.wait_token_budget_s, 0.12);
  EXPECT_DOUBLE_EQ(p.prefill_s, 0.22);
  EXPECT_DOUBLE_EQ(p.prefill_batched_s, 0.03);
  EXPECT_DOUBLE_EQ(p.decode_sum(), 0);
  EXPECT_NEAR(p.ttft_sum(), 0.37, 1e-12);
}

TEST(LatencyParts, MissesAreTalliedAgainstTheSlo) {
  recorder rec;
  request_outcomes o(rec.sink());
  o.set_slo({0.5, std::nullopt, std::nullopt});
  const request_handle slow = o.arrived(1, 0, 100, 1);
  const request_handle fast = o.arrived(2, 0, 100, 1);
  const request_handle refused = o.arrived(3, 0, 100, 1);
  o.sent(slow, 0, 0, {0.1, NAN});
  o.sent(fast, 0, 0, {0.1, NAN});
  o.sent(refused, 0, 0, {0.1, NAN});
  o.scheduled(fast, 0);
  o.prefill_chunk(fast, 0, 100, 0.1, 0.1);
  o.step_ended(whole(0.1), wait_cause::kv_memory);  // slow waits for memory
  o.emitted(fast, 0.1);
  o.finished(fast, 0.1);
  o.step_ended(whole(0.6), wait_cause::kv_memory);
  o.scheduled(slow, 0.7);
  o.prefill_chunk(slow, 0, 100, 0.1, 0.1);
  o.step_ended(whole(0.1), wait_cause::none);
  o.emitted(slow, 0.8);
  o.finished(slow, 0.8);
  o.rejected(refused, 0.8, "too long");
  const auto m = o.summary(1.0).misses;
  EXPECT_EQ(m.missed, 2u);
  EXPECT_EQ(m.requests[static_cast<std::size_t>(miss_cause::kv_memory)], 1u);
  EXPECT_EQ(m.requests[static_cast<std::size_t>(miss_cause::rejected)], 1u);
  EXPECT_DOUBLE_EQ(m.seconds[static_cast<std::size_t>(miss_cause::kv_memory)], 0.7);
  EXPECT_DOUBLE_EQ(m.seconds[static_cast<std::size_t>(miss_cause::own_work)], 0.1);
}

slo_spec tpot_slo(double s) { return {std::nullopt, s, std::nullopt}; }

TEST(SloMisses, TheCauseIsTheLargestAvoidablePart) {
  latency_parts p;
  p.prefill_s = 0.1;
  p.decode_s = 9 * 0.04;            // its own decode: 40 ms a token
  p.decode_prefill_s = 9 * 0.03;    // others' chunks: 30 ms a token
  p.decode_migration_s = 9 * 0.001;
  const alone_latency alone{0.1, 0.01};
  EXPECT_EQ(dominant_cause(tpot_slo(0.05), 0.1, 0.071, 0.74, 10, p, alone), miss_cause::prefill_interference);
  // Its own batched decode alone is over the limit: the GPU's pace is the cause.
  EXPECT_EQ(dominant_cause(tpot_slo(0.035), 0.1, 0.071, 0.74, 10, p, alone), miss_cause::own_work);
  // Even alone it would miss.
  EXPECT_EQ(dominant_cause(tpot_slo(0.005), 0.1, 0.071, 0.74, 10, p, alone), miss_cause::infeasible_alone);
  // A TTFT miss looks at the TTFT parts only.
  p.wait_batch_slots_s = 0.5;
  EXPECT_EQ(dominant_cause({0.3, 0.5, std::nullopt}, 0.6, 0.071, 0.74, 10, p, alone), miss_cause::batch_slots);
}

}  // namespace
}  // namespace kvscope
