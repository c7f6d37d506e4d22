// The tracker on small hand-computed event sequences: latencies, preemption, rejection, goodput.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "outcome/request_outcomes.hpp"
#include "outcome_recorder.hpp"

namespace kvscope {
namespace {

using test::recorder;

constexpr double sketch_error = 0.005;  // the default relative accuracy

TEST(RequestOutcomes, OneRequest) {
  recorder rec;
  request_outcomes o(rec.sink());
  const request_handle h = o.arrived(42, 0.0, 100, 3);
  o.scheduled(h, 0.5);
  o.emitted(h, 1.0);
  o.emitted(h, 1.1);
  o.emitted(h, 1.2);
  o.finished(h, 1.2);

  ASSERT_EQ(rec.rows.size(), 1u);
  const request_record& r = rec.rows[0];
  EXPECT_EQ(r.request_id, 42u);
  EXPECT_EQ(r.outcome, request_outcome::finished);
  EXPECT_EQ(r.output_tokens, 3u);
  EXPECT_EQ(r.ttft_s(), 1.0);
  EXPECT_DOUBLE_EQ(r.tpot_s(), 0.1);
  EXPECT_EQ(r.e2e_s(), 1.2);
  EXPECT_EQ(r.queue_s(), 0.5);
  EXPECT_EQ(r.first_scheduled_s, 0.5);
  EXPECT_EQ(r.first_token_s, 1.0);
  EXPECT_EQ(r.finish_s, 1.2);

  const outcome_summary s = o.summary(2.0);
  EXPECT_EQ(s.arrived, 1u);
  EXPECT_EQ(s.finished, 1u);
  EXPECT_EQ(s.in_flight, 0u);
  EXPECT_EQ(s.latency.ttft_s.p50, 1.0);
  EXPECT_EQ(s.latency.ttft_s.max, 1.0);
  EXPECT_DOUBLE_EQ(s.latency.tpot_s.mean, 0.1);
  EXPECT_EQ(s.latency.e2e_s.p99, 1.2);
  EXPECT_EQ(s.latency.queue_s.mean, 0.5);
  // ITL {0.1, 0.1}: two samples, mean exact, percentiles within the sketch's bound.
  EXPECT_EQ(o.itl_sketch().count(), 2u);
  EXPECT_DOUBLE_EQ(s.latency.itl_s.mean, 0.1);
  EXPECT_NEAR(s.latency.itl_s.p50, 0.1, 0.1 * sketch_error);
  EXPECT_NEAR(s.latency.itl_s.p99, 0.1, 0.1 * sketch_error);
  // 1.1 - 1.0 is 0.10000000000000009 in doubles: near 0.1, not within 4 ulps of it.
  EXPECT_NEAR(s.latency.itl_s.max, 0.1, 1e-15);
  EXPECT_EQ(s.requests_per_s, 0.5);
  EXPECT_EQ(s.output_tokens_per_s, 1.5);
  EXPECT_EQ(s.prompt_tokens, 100u);
}

// A arrives at 0 and decodes in the steps ending at 1 and 2; B arrives at 0.5, is admitted at 1
// with 64 prompt tokens cached, and emits at 2, 3 and 3.5.
TEST(RequestOutcomes, TwoRequestsWithAPrefixHit) {
  recorder rec;
  request_outcomes o(rec.sink());
  const request_handle a = o.arrived(0, 0.0, 100, 2);
  o.scheduled(a, 0.0);
  o.emitted(a, 1.0);
  const request_handle b = o.arrived(1, 0.5, 100, 3);
  EXPECT_NE(a, b);
  o.scheduled(b, 1.0);
  o.prefix_hit(b, 64);
  o.scheduled(a, 1.0);  // later steps do not move the first-scheduled time
  const request_handle step2[] = {a, b};
  o.emitted_batch(step2, 2.0);
  o.finished(a, 2.0);
  o.emitted(b, 3.0);
  o.emitted(b, 3.5);
  o.finished(b, 3.5);

  ASSERT_EQ(rec.rows.size(), 2u);
  const request_record& ra = rec.rows[0];
  const request_record& rb = rec.rows[1];
  EXPECT_EQ(ra.request_id, 0u);
  EXPECT_EQ(ra.cached_prompt_tokens, 0u);
  EXPECT_EQ(ra.ttft_s(), 1.0);
  EXPECT_EQ(ra.tpot_s(), 1.0);
  EXPECT_EQ(ra.e2e_s(), 2.0);
  EXPECT_EQ(ra.queue_s(), 0.0);
  EXPECT_EQ(rb.request_id, 1u);
  EXPECT_EQ(rb.cached_prompt_tokens, 64u);
  EXPECT_EQ(rb.ttft_s(), 1.5);
  EXPECT_EQ(rb.tpot_s(), 0.75);  // (3.5 - 2) / 2
  EXPECT_EQ(rb.e2e_s(), 3.0);
  EXPECT_EQ(rb.queue_s(), 0.5);

  const outcome_summary s = o.summary(4.0);
  EXPECT_EQ(s.finished, 2u);
  EXPECT_EQ(s.latency.ttft_s.mean, 1.25);
  EXPECT_EQ(s.latency.ttft_s.p50, 1.25);
  EXPECT_DOUBLE_EQ(s.latency.ttft_s.p90, 1.45);
  EXPECT_DOUBLE_EQ(s.latency.ttft_s.p99, 1.495);
  EXPECT_EQ(s.latency.ttft_s.max, 1.5);
  EXPECT_EQ(s.latency.tpot_s.mean, 0.875);
  EXPECT_DOUBLE_EQ(s.latency.tpot_s.p90, 0.975);
  EXPECT_DOUBLE_EQ(s.latency.e2e_s.p90, 2.9);
  EXPECT_EQ(s.latency.queue_s.p50, 0.25);
  // ITL: A {1}, B {1, 0.5}.
  EXPECT_EQ(o.itl_sketch().count(), 3u);
  EXPECT_DOUBLE_EQ(s.latency.itl_s.mean, 2.5 / 3);
  EXPECT_NEAR(s.latency.itl_s.p50, 1.0, sketch_error);
  EXPECT_EQ(s.latency.itl_s.max, 1.0);
  EXPECT_EQ(s.requests_per_s, 0.5);
  EXPECT_EQ(s.output_tokens_per_s, 1.25);
  EXPECT_EQ(s.prompt_tokens, 200u);
}

TEST(RequestOutcomes, BatchAddsEqualGapsOnceAndFirstTokensNone) {
  request_outcomes o;
  std::vector<request_handle> hs;
  for (std::uint64_t i = 0; i < 5; ++i) hs.push_back(o.arrived(i, 0.0, 10, 10));
  o.emitted_batch(hs, 1.0);  // first tokens: no gap
  EXPECT_EQ(o.itl_sketch().count(), 0u);
  o.emitted(hs[4], 1.5);  // one sequence ran ahead
  o.emitted_batch(hs, 2.0);  // gaps 1, 1, 1, 1, 0.5
  EXPECT_EQ(o.itl_sketch().count(), 6u);
  EXPECT_DOUBLE_EQ(o.itl_sketch().sum(), 0.5 + 4 * 1.0 + 0.5);
  EXPECT_EQ(o.itl_sketch().min(), 0.5);
}

// Tokens at 0.5 and 0.75; preempted (prompt 100 + 2 outputs recomputed); readmitted at 1 and
// emits at 2; preempted again (103 tokens); emits at 3 and finishes.
TEST(RequestOutcomes, PreemptedRequestKeepsArrivalAndFirstToken) {
  recorder rec;
  request_outcomes o(rec.sink());
  const request_handle h = o.arrived(5, 0.0, 100, 4);
  o.scheduled(h, 0.25);
  o.emitted(h, 0.5);
  o.emitted(h, 0.75);
  o.preempted(h, 102);
  o.scheduled(h, 1.0);
  o.prefix_hit(h, 32);
  o.emitted(h, 2.0);
  o.preempted(h, 103);
  o.scheduled(h, 2.5);
  o.emitted(h, 3.0);
  o.finished(h, 3.0);

  ASSERT_EQ(rec.rows.size(), 1u);
  const request_record& r = rec.rows[0];
  EXPECT_EQ(r.arrival_s, 0.0);
  EXPECT_EQ(r.first_scheduled_s, 0.25);
  EXPECT_EQ(r.first_token_s, 0.5);
  EXPECT_EQ(r.output_tokens, 4u);
  EXPECT_EQ(r.preemptions, 2u);
  EXPECT_EQ(r.recomputed_tokens, 205u);
  EXPECT_EQ(r.cached_prompt_tokens, 32u);
  EXPECT_EQ(r.ttft_s(), 0.5);
  EXPECT_DOUBLE_EQ(r.tpot_s(), 2.5 / 3);
  EXPECT_EQ(r.e2e_s(), 3.0);
  EXPECT_EQ(r.queue_s(), 0.25);

  // ITL {0.25, 1.25, 1}: each gap across a preemption is one sample.
  const quantile_sketch& itl = o.itl_sketch();
  EXPECT_EQ(itl.count(), 3u);
  EXPECT_EQ(itl.sum(), 2.5);
  EXPECT_EQ(itl.max(), 1.25);
  EXPECT_EQ(itl.min(), 0.25);
  const outcome_summary s = o.summary(3.0);
  EXPECT_EQ(s.preemptions, 2u);
  EXPECT_EQ(s.recomputed_tokens, 205u);
  EXPECT_NEAR(s.latency.itl_s.p50, 1.0, sketch_error);
}

TEST(RequestOutcomes, RejectedKeepsItsReasonAndIsNotFinished) {
  recorder rec;
  request_outcomes o(rec.sink());
  const request_handle ok = o.arrived(0, 0.0, 10, 1);
  const request_handle no = o.arrived(1, 1.0, 9000, 5);
  o.rejected(no, 1.5, "prompt of 9000 tokens needs 563 blocks, the pool has 512");
  o.scheduled(ok, 0.0);
  o.emitted(ok, 1.0);
  o.finished(ok, 1.0);

  ASSERT_EQ(rec.rows.size(), 2u);
  const request_record& r = rec.rows[0];
  EXPECT_EQ(r.request_id, 1u);
  EXPECT_EQ(r.outcome, request_outcome::rejected);
  EXPECT_EQ(r.reason, "prompt of 9000 tokens needs 563 blocks, the pool has 512");
  EXPECT_EQ(r.finish_s, 1.5);
  EXPECT_TRUE(std::isnan(r.first_scheduled_s));
  EXPECT_TRUE(std::isnan(r.ttft_s()));
  EXPECT_TRUE(std::isnan(r.e2e_s()));
  EXPECT_TRUE(std::isnan(r.queue_s()));
  EXPECT_EQ(rec.rows[1].reason, "");  // the reused record forgets the reason

  const outcome_summary s = o.summary(2.0);
  EXPECT_EQ(s.finished, 1u);
  EXPECT_EQ(s.rejected, 1u);
  EXPECT_EQ(s.requests_per_s, 0.5);
  EXPECT_EQ(s.slo_attainment, 0.5);  // no SLO: finished / (finished + rejected)
  EXPECT_EQ(s.latency.e2e_s.max, 1.0);  // the rejected request has no latency
  EXPECT_EQ(s.prompt_tokens, 10u);
}

TEST(RequestOutcomes, NothingCompletedIsNaNNotZero) {
  request_outcomes o;
  const request_handle h = o.arrived(0, 0.0, 10, 5);
  o.scheduled(h, 0.5);
  o.emitted(h, 1.0);
  const outcome_summary s = o.summary(1.0);
  EXPECT_EQ(s.in_flight, 1u);
  EXPECT_EQ(s.finished, 0u);
  EXPECT_TRUE(std::isnan(s.latency.ttft_s.mean));
  EXPECT_TRUE(std::isnan(s.latency.tpot_s.p50));
  EXPECT_TRUE(std::isnan(s.latency.e2e_s.max));
  EXPECT_TRUE(std::isnan(s.latency.queue_s.p99));
  EXPECT_TRUE(std::isnan(s.latency.itl_s.mean));
  EXPECT_TRUE(std::isnan(s.slo_attainment));
  EXPECT_EQ(s.requests_per_s, 0.0);
  EXPECT_TRUE(std::isnan(o.summary(0.0).requests_per_s));
}

TEST(RequestOutcomes, OneTokenOutputsHaveNoTpotAndNoItl) {
  recorder rec;
  request_outcomes o(rec.sink());
  const request_handle h = o.arrived(0, 0.0, 10, 1);
  o.scheduled(h, 0.0);
  o.emitted(h, 0.25);
  o.finished(h, 0.25);
  ASSERT_EQ(rec.rows.size(), 1u);
  EXPECT_EQ(rec.rows[0].ttft_s(), 0.25);
  EXPECT_TRUE(std::isnan(rec.rows[0].tpot_s()));
  const outcome_summary s = o.summary(1.0);
  EXPECT_TRUE(std::isnan(s.latency.tpot_s.mean));
  EXPECT_TRUE(std::isnan(s.latency.itl_s.p50));
  EXPECT_EQ(s.latency.ttft_s.mean, 0.25);
  EXPECT_EQ(s.output_tokens_per_s, 1.0);
}

TEST(RequestOutcomes, HandlesAreReusedWithFreshState) {
  recorder rec;
  request_outcomes o(rec.sink());
  const request_handle a = o.arrived(0, 0.0, 10, 2);
  o.scheduled(a, 0.0);
  o.prefix_hit(a, 8);
  o.emitted(a, 1.0);
  o.preempted(a, 11);
  o.emitted(a, 2.0);
  o.finished(a, 2.0);
  const request_handle b = o.arrived(1, 3.0, 20, 1);
  EXPECT_EQ(a, b);
  o.emitted(b, 4.0);
  o.finished(b, 4.0);
  ASSERT_EQ(rec.rows.size(), 2u);
  const request_record& r = rec.rows[1];
  EXPECT_EQ(r.request_id, 1u);
  EXPECT_EQ(r.cached_prompt_tokens, 0u);
  EXPECT_EQ(r.preemptions, 0u);
  EXPECT_EQ(r.recomputed_tokens, 0u);
  EXPECT_TRUE(std::isnan(r.first_scheduled_s));
  EXPECT_EQ(r.first_token_s, 4.0);
  EXPECT_EQ(r.ttft_s(), 1.0);
  EXPECT_EQ(o.summary(4.0).arrived, 2u);
}

// R1: ttft 0.25, 17 tokens by 1.25 (tpot 1/16); R2: ttft 0.75, 5 tokens by 1.25 (tpot 0.125);
// R3: one token at 0.5; R4 rejected. All arrive at 0; the run lasts 2 s.
class Goodput : public ::testing::Test {
 protected:
  void SetUp() override { replay(o); }
  // The same four requests into `into`: goodput is counted as each finishes, against the SLO set.
  static void replay(request_outcomes& into) {
    const request_handle r1 = into.arrived(1, 0.0, 10, 17);
    const request_handle r2 = into.arrived(2, 0.0, 10, 5);
    const request_handle r3 = into.arrived(3, 0.0, 10, 1);
    const request_handle r4 = into.arrived(4, 0.0, 99999, 1);
    into.emitted(r1, 0.25);
    into.emitted(r1, 1.25, 16);  // one chunk of 16 tokens
    into.finished(r1, 1.25);
    into.emitted(r2, 0.75);
    into.emitted(r2, 1.25, 4);
    into.finished(r2, 1.25);
    into.emitted(r3, 0.5);
    into.finished(r3, 0.5);
    into.rejected(r4, 0.0, "too long");
  }
  outcome_summary with(std::string_view slo) const {
    const auto spec = parse_slo(slo);
    EXPECT_TRUE(spec) << spec.error();
    request_outcomes judged;
    judged.set_slo(*spec);
    replay(judged);
    return judged.summary(2.0);
  }
  request_outcomes o;
};

TEST_F(Goodput, WithoutSloEveryFinishedRequestIsGood) {
  const outcome_summary s = o.summary(2.0);
  EXPECT_EQ(s.good, 3u);
  EXPECT_EQ(s.goodput_rps, 1.5);
  EXPECT_EQ(s.goodput_rps, s.requests_per_s);
  EXPECT_EQ(s.slo_attainment, 0.75);
  // TPOT statistics leave the one-token request out: {1/16, 1/8}.
  EXPECT_EQ(s.latency.tpot_s.mean, 0.09375);
  EXPECT_EQ(s.output_tokens, 23u);
  EXPECT_EQ(s.output_tokens_per_s, 11.5);
  // A chunk of tokens is one ITL sample, as one streamed chunk is in vLLM's benchmark.
  EXPECT_EQ(o.itl_sketch().count(), 2u);
}

TEST_F(Goodput, TheCheapCountsAreTheSummarys) {
  request_outcomes judged;
  judged.set_slo(*parse_slo("ttft=0.5"));
  replay(judged);
  const outcome_summary s = judged.summary(2.0);
  const request_outcomes::tally t = judged.counts();
  EXPECT_EQ(t.finished, s.finished);
  EXPECT_EQ(t.rejected, s.rejected);
  EXPECT_EQ(t.good, s.good);
  EXPECT_EQ(t.missed(), 2u);  // R2 (TTFT 0.75) and the rejected R4
}

TEST_F(Goodput, LimitsAreInclusive) {
  const outcome_summary s = with("ttft=0.5");  // R1, and R3 at exactly 0.5
  EXPECT_EQ(s.good, 2u);
  EXPECT_EQ(s.goodput_rps, 1.0);
  EXPECT_EQ(s.slo_attainment, 0.5);
  EXPECT_EQ(with("tpot=0.0625").good, 2u);  // R1 exactly, R3 with one token
}

TEST_F(Goodput, OneTokenOutputsMeetAnyTpotLimit) {
  EXPECT_EQ(with("tpot=0.1").good, 2u);     // R1 and R3 (TPOT 0 for the goodput test)
  EXPECT_EQ(with("tpot=0.001").good, 1u);   // only R3
}

TEST_F(Goodput, EveryGivenLimitMustHold) {
  EXPECT_EQ(with("e2e=1").good, 1u);  // R3
  EXPECT_EQ(with("ttft=0.5,tpot=0.1,e2e=1.25").good, 2u);  // R1 and R3; R2's TTFT is 0.75
  const outcome_summary none = with("ttft=0.1");
  EXPECT_EQ(none.good, 0u);
  EXPECT_EQ(none.goodput_rps, 0.0);
  EXPECT_EQ(none.slo_attainment, 0.0);
}

}  // namespace
}  // namespace kvscope
