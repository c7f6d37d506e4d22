// The payload (real K/V bytes or counted ones) changes only the measured quality: scheduling,
// clock, policy and memory per level are the same step for step, so a run's headline metrics
// are the same bit for bit. The GUI's what-if relies on it to run its whole loads in
// accounting mode (ui/jobs/background_run).
#include <gtest/gtest.h>

#include <vector>

#include "engine_test_support.hpp"
#include "run/run_service.hpp"
#include "run/summary_compare.hpp"

namespace kvscope {
namespace {

struct traced {
  std::vector<double> headline;
  std::vector<step_metrics> steps;
};

traced run_with(payload_mode payload) {
  run_description run;
  run.load_spec = "gen:rate=30,prompt=lognormal:600:0.6,output=uniform:150:0.5,count=120,seed=3";
  run.options = test::tiny_options(4ull << 20, payload);
  run.options.quality_every = 10;
  traced t;
  const auto result = run_to_end(run, [&](const engine& e) { t.steps.push_back(e.last_metrics()); });
  t.headline = headline_values(result.summary);
  return t;
}

TEST(PayloadInvariance, HeadlineAndPlottedStepMetricsDoNotDependOnThePayload) {
  const traced data = run_with(payload_mode::data), counted = run_with(payload_mode::accounting);
  EXPECT_EQ(data.headline, counted.headline);
  ASSERT_EQ(data.steps.size(), counted.steps.size());
  bool reachedQ4 = false;
  for (std::size_t i = 0; i < data.steps.size(); ++i) {
    const step_metrics &a = data.steps[i], &b = counted.steps[i];
    ASSERT_EQ(a.kv_cache_usage_perc, b.kv_cache_usage_perc) << "step " << i;
    ASSERT_EQ(a.pressure_ewma, b.pressure_ewma) << "step " << i;
    ASSERT_EQ(a.bytes_per_level, b.bytes_per_level) << "step " << i;
    ASSERT_EQ(a.scale_bytes, b.scale_bytes) << "step " << i;
    ASSERT_EQ(a.sim_time_s, b.sim_time_s) << "step " << i;
    ASSERT_EQ(a.level, b.level) << "step " << i;
    reachedQ4 = reachedQ4 || a.level == precision::q4;
  }
  EXPECT_TRUE(reachedQ4);  // the levels were exercised, or this proves little
}

}  // namespace
}  // namespace kvscope
