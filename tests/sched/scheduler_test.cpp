#include <gtest/gtest.h>

#include "counting_kv.hpp"
#include "sched/scheduler.hpp"

namespace kvscope {
namespace {

request make_request(std::uint64_t id, std::uint32_t prompt, std::uint32_t output) {
  request r;
  r.id = id;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  return r;
}

// Runs until idle; returns the steps taken (bounded so a livelock fails instead of hanging).
int drain(scheduler& s, int max_steps = 100000) {
  int steps = 0;
  while (!s.idle() && steps < max_steps) {
    (void)s.step();
    ++steps;
  }
  return steps;
}

TEST(Scheduler, PrefillThenOneDecodeTokenPerStep) {
  test::counting_kv kv(100, 16);
  scheduler s({}, kv);
  s.enqueue(make_request(0, 40, 3));
  auto p = s.step();  // whole prompt in one chunk; samples output token 1
  EXPECT_EQ(p.prefill_tokens, 40u);
  EXPECT_EQ(p.decode_tokens, 0u);
  EXPECT_EQ(p.admitted, 1u);
  p = s.step();
  EXPECT_EQ(p.decode_tokens, 1u);
  p = s.step();  // output token 3: done
  EXPECT_EQ(p.decode_tokens, 1u);
  ASSERT_EQ(p.finished.size(), 1u);
  EXPECT_TRUE(s.idle());
  EXPECT_EQ(kv.live_sequences(), 0u);
  EXPECT_EQ(kv.free_frames(), 100u);
}

TEST(Scheduler, ChunkedPrefillRespectsTheTokenBudget) {
  test::counting_kv kv(1000, 16);
  scheduler_config cfg;
  cfg.max_num_batched_tokens = 100;
  scheduler s(cfg, kv);
  s.enqueue(make_request(0, 250, 1));
  s.enqueue(make_request(1, 30, 1));
  EXPECT_EQ(s.step().prefill_tokens, 100u);  // only the head fits this step
  EXPECT_EQ(s.num_waiting(), 1u);
  EXPECT_EQ(s.step().prefill_tokens, 100u);
  const auto p = s.step();  // 50 left of the first, then the second admitted with 30
  EXPECT_EQ(p.prefill_tokens, 80u);
  EXPECT_EQ(p.finished.size(), 2u);
}

// vLLM V0's default scheduler (chunked prefill off): whole prompts first, in steps of their own;
// the running decodes wait until a step admits none.
TEST(Scheduler, UnchunkedPromptsRunWholeAndAlone) {
  test::counting_kv kv(1000, 16);
  scheduler_config cfg;
  cfg.max_num_batched_tokens = 100;
  cfg.chunked_prefill = false;
  scheduler s(cfg, kv);
  s.enqueue(make_request(0, 60, 3));
  auto p = s.step();
  EXPECT_EQ(p.prefill_tokens, 60u);
  s.enqueue(make_request(1, 30, 3));
  s.enqueue(make_request(2, 80, 3));  // 30 + 80 exceed the budget: waits, not chunked
  p = s.step();                       // request 1's prompt alone: request 0 does not decode
  EXPECT_EQ(p.prefill_tokens, 30u);
  EXPECT_EQ(p.decode_tokens, 0u);
  EXPECT_EQ(s.events().unscheduled.size(), 1u);
  EXPECT_EQ(s.events().waiting, wait_cause::token_budget);
  p = s.step();  // request 2 whole, still alone
  EXPECT_EQ(p.prefill_tokens, 80u);
  EXPECT_EQ(p.decode_tokens, 0u);
  p = s.step();  // nothing left to admit: everyone decodes
  EXPECT_EQ(p.prefill_tokens, 0u);
  EXPECT_EQ(p.decode_tokens, 3u);
  drain(s);
  EXPECT_EQ(s.finished_total(), 3u);
}

TEST(Scheduler, ChunkedMixesDecodesIntoPromptSteps) {
  test::counting_kv kv(1000, 16);
  scheduler_config cfg;
  cfg.max_num_batched_tokens = 100;
  scheduler s(cfg, kv);
  s.enqueue(make_request(0, 60, 3));
  (void)s.step();
  s.enqueue(make_request(1, 120, 3));
  const auto p = s.step();  // request 0 decodes; request 1 gets the other 99 tokens
  EXPECT_EQ(p.decode_tokens, 1u);
  EXPECT_EQ(p.prefill_tokens, 99u);
}

TEST(Scheduler, MaxNumSeqsCapsTheBatch) {
  test::counting_kv kv(1000, 16);
  scheduler_config cfg;
  cfg.max_num_seqs = 3;
  scheduler s(cfg, kv);
  for (std::uint64_t i = 0; i < 5; ++i) s.enqueue(make_request(i, 10, 50));
  (void)s.step();
  EXPECT_EQ(s.num_running(), 3u);
  EXPECT_EQ(s.num_waiting(), 2u);
  drain(s);
  EXPECT_EQ(s.finished_total(), 5u);
}

TEST(Scheduler, AdmissionKeepsTheWatermarkFree) {
  test::counting_kv kv(100, 16);
  scheduler_config cfg;
  cfg.watermark = 0.10;  // 10 frames
  scheduler s(cfg, kv);
  s.enqueue(make_request(0, 16 * 50, 20));  // 50 frames
  s.enqueue(make_request(1, 16 * 41, 1));   // 41 more + 10 reserve > the 50 left: waits
  (void)s.step();
  EXPECT_EQ(s.num_running(), 1u);
  EXPECT_EQ(s.num_waiting(), 1u);
  drain(s);
  EXPECT_EQ(s.finished_total(), 2u);  // admitted once the first finished
  EXPECT_TRUE(s.rejected().empty());
}

TEST(Scheduler, PromptThatNeverFitsBesideTheWatermarkIsRejectedNotLeftWaiting) {
  test::counting_kv kv(100, 16);
  scheduler_config cfg;
  cfg.watermark = 0.10;
  scheduler s(cfg, kv);
  s.enqueue(make_request(3, 16 * 95, 1));  // fits the pool, never beside 10 reserved frames
  EXPECT_LT(drain(s), 10);
  ASSERT_EQ(s.rejected().size(), 1u);
  EXPECT_NE(s.rejected()[0].reason.find("watermark"), std::string::npos);
  EXPECT_EQ(s.rejected()[0].cause, rejection_cause::prompt_over_watermark);
}

TEST(Scheduler, ImpossibleRequestIsRejectedWithAReason) {
  test::counting_kv kv(10, 16);
  scheduler s({}, kv);
  s.enqueue(make_request(7, 16 * 11, 4));
  s.enqueue(make_request(8, 16, 4));
  drain(s);
  ASSERT_EQ(s.rejected().size(), 1u);
  EXPECT_EQ(s.rejected()[0].request_id, 7u);
  EXPECT_NE(s.rejected()[0].reason.find("more than the whole pool"), std::string::npos);
  EXPECT_EQ(s.rejected()[0].cause, rejection_cause::larger_than_pool);
  EXPECT_EQ(s.finished_total(), 1u);
}

TEST(Scheduler, OversubscriptionPreemptsNewestAndEveryoneStillFinishes) {
  test::counting_kv kv(40, 16);
  scheduler_config cfg;
  cfg.watermark = 0;
  scheduler s(cfg, kv);
  // 8 requests × (100 prompt + 200 output) ≈ 19 frames each at the end: far more than 40.
  for (std::uint64_t i = 0; i < 8; ++i) s.enqueue(make_request(i, 100, 200));
  const int steps = drain(s);
  EXPECT_LT(steps, 100000);
  EXPECT_GT(s.preemptions_total(), 0u);
  EXPECT_EQ(s.finished_total(), 8u);
  EXPECT_TRUE(s.rejected().empty());
  EXPECT_EQ(kv.free_frames(), 40u);
}

TEST(Scheduler, PreemptedSequenceRecomputesItsOutputsFirst) {
  test::counting_kv kv(4, 16);  // 64 tokens
  scheduler_config cfg;
  cfg.watermark = 0;
  scheduler s(cfg, kv);
  s.enqueue(make_request(0, 16, 40));  // peaks at 55 tokens: 4 frames
  s.enqueue(make_request(1, 16, 40));
  drain(s);
  EXPECT_GT(s.preemptions_total(), 0u);
  EXPECT_EQ(s.finished_total(), 2u);
}

}  // namespace
}  // namespace kvscope

namespace kvscope {
namespace {

// Prefix hits stored less compactly than fresh blocks: each cached block found takes two frames
// (as a block cached at fp16 does beside fresh q8 ones), so with its hits the head request
// cannot fit even alone, while computed afresh it can. `fresh_fits` false: not even afresh.
class bulky_hits_kv final : public kv_cache_manager {
 public:
  bulky_hits_kv(std::uint32_t frames, std::uint32_t hit_tokens, bool fresh_fits)
      : inner_(frames, 16), hit_tokens_(hit_tokens), fresh_fits_(fresh_fits) {}

  std::uint32_t begin_sequence(sequence_id seq, const request& r, std::uint32_t prompt) override {
    ++lookups_;
    (void)inner_.begin_sequence(seq, r, prompt);
    if (!inner_.allocate_slots(seq, 2 * hit_tokens_)) return 0;  // the hits' two frames a block
    bulky_ = seq;
    return hit_tokens_;
  }
  std::uint32_t begin_sequence_afresh(sequence_id seq, const request& r,
                                      std::uint32_t prompt) override {
    ++afresh_;
    return inner_.begin_sequence(seq, r, prompt);
  }
  bool allocate_slots(sequence_id seq, std::uint32_t total_tokens) override {
    if (!fresh_fits_) return false;
    return inner_.allocate_slots(seq, seq == bulky_ ? total_tokens + hit_tokens_ : total_tokens);
  }
  void end_sequence(sequence_id seq) override {
    if (seq == bulky_) bulky_ = no_sequence;
    inner_.end_sequence(seq);
  }
  bool make_room_for(std::uint32_t tokens, std::uint32_t reserve, eviction how) override {
    return inner_.make_room_for(tokens, reserve, how);
  }
  bool could_ever_fit(std::uint32_t tokens, std::uint32_t reserve) const override {
    return inner_.could_ever_fit(tokens, reserve);
  }
  std::uint32_t total_frames() const override { return inner_.total_frames(); }

  int lookups_ = 0;
  int afresh_ = 0;

 private:
  test::counting_kv inner_;
  std::uint32_t hit_tokens_;
  bool fresh_fits_;
  sequence_id bulky_ = no_sequence;
};

// Alone, a head that fails to fit with its prefix hits used to give them back and try the same
// again every step for ever (seen on the Mooncake trace with the age family at 4 GiB).
TEST(Scheduler, AloneHeadThatFitsOnlyWithoutItsHitsIsAdmittedAfresh) {
  bulky_hits_kv kv(10, 16 * 4, true);  // hits: 4 blocks in 8 frames, +4 more: 12; fresh: 8
  scheduler_config cfg;
  cfg.watermark = 0;
  scheduler s(cfg, kv);
  s.enqueue(make_request(1, 16 * 8 - 4, 3));
  EXPECT_LT(drain(s, 1000), 1000);
  EXPECT_EQ(s.finished_total(), 1u);
  EXPECT_TRUE(s.rejected().empty());
  EXPECT_EQ(kv.afresh_, 1);
  EXPECT_EQ(s.prefix_hit_tokens_total(), 0u);
}

TEST(Scheduler, AloneHeadThatFitsInNoWayIsRejectedInsteadOfWaitingForEver) {
  bulky_hits_kv kv(10, 16 * 4, false);
  scheduler_config cfg;
  cfg.watermark = 0;
  scheduler s(cfg, kv);
  s.enqueue(make_request(1, 16 * 8 - 4, 3));
  s.enqueue(make_request(2, 16, 3));
  EXPECT_LT(drain(s, 1000), 1000);
  ASSERT_EQ(s.rejected().size(), 2u);
  EXPECT_NE(s.rejected()[0].reason.find("even with nothing else running"), std::string::npos);
  EXPECT_EQ(s.rejected()[0].cause, rejection_cause::prompt_fits_no_pool);
  EXPECT_EQ(kv.lookups_, 2);  // each tried once, not once a step
}

}  // namespace
}  // namespace kvscope
