// Multi-step scheduling (num_scheduler_steps, vLLM 0.6): decodes scheduled once for N steps and
// their tokens streamed together, so a client measures one ITL gap per N tokens while the time
// per output token stays that of a step.
#include <gtest/gtest.h>

#include "engine_test_support.hpp"
#include "model/builtin_models.hpp"
#include "run/run_service.hpp"

namespace kvscope {
namespace {

// Closed loop, one request at a time: 1 prefill step, then 100 decode steps of a fixed time.
outcome_summary served(std::uint32_t steps) {
  auto o = test::tiny_options(64ull << 20, payload_mode::accounting);
  o.max_concurrency = 1;
  o.scheduler.num_scheduler_steps = steps;
  engine e(o, test::gen_load("gen:rate=1000,prompt=fixed:100,output=fixed:101,count=5,seed=1"));
  while (e.step()) {
  }
  EXPECT_EQ(e.totals().requests_finished, 5u);
  return e.outcomes().summary(e.sim_time_s());
}

TEST(MultiStep, OneStepStreamsEveryToken) {
  const auto s = served(1);
  EXPECT_NEAR(s.latency.itl_s.p50, s.latency.tpot_s.p50, 0.01 * s.latency.tpot_s.p50);
}

TEST(MultiStep, TenStepsStreamTenTokensPerGapAtTheSameTpot) {
  const auto one = served(1), ten = served(10);
  EXPECT_NEAR(ten.latency.tpot_s.p50, one.latency.tpot_s.p50, 1e-9);
  EXPECT_NEAR(ten.latency.itl_s.p50, 10 * one.latency.tpot_s.p50, 0.02 * 10 * one.latency.tpot_s.p50);
  EXPECT_NEAR(ten.latency.ttft_s.p50, one.latency.ttft_s.p50, 1e-9);
  EXPECT_EQ(ten.output_tokens, one.output_tokens);
}

// With a GPU's step time, the host's work (scheduling, preparing inputs: the step and
// per-sequence overheads) is paid once a schedule; its later steps pay only the layers' costs.
TEST(MultiStep, LaterStepsOfAScheduleSkipTheHostOverheads) {
  run_description run;
  run.load_spec = "gen:rate=1,prompt=fixed:100,output=fixed:9,count=1";
  run.options.model = "llama3-8b";
  run.options.gpu = "h100";
  run.options.budget_bytes = 8ull << 30;
  run.options.scheduler.num_scheduler_steps = 4;
  std::vector<double> step_seconds;
  run_to_end(run, [&](const engine& e) { step_seconds.push_back(e.last_metrics().step_seconds); });
  // The prefill, then two schedules of four decode steps: 1-4 and 5-8.
  ASSERT_EQ(step_seconds.size(), 9u);
  const auto gpu = *builtin_gpu("h100");
  const double host = gpu.step_overhead_s + gpu.sequence_overhead_s;
  // Consecutive decodes differ by one more token of context read: nanoseconds.
  EXPECT_NEAR(step_seconds[1] - step_seconds[2], host, 1e-6);
  EXPECT_NEAR(step_seconds[4] - step_seconds[5], -host, 1e-6);
  EXPECT_NEAR(step_seconds[2], step_seconds[3], 1e-6);
  EXPECT_NEAR(step_seconds[5] - step_seconds[6], host, 1e-6);
}

}  // namespace
}  // namespace kvscope
