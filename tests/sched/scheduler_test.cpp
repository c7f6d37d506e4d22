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
