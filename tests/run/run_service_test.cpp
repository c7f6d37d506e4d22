#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "engine_test_support.hpp"
#include "io/metrics_csv.hpp"
#include "io/summary_format.hpp"
#include "run/run_service.hpp"

namespace kvscope {
namespace {

run_description small_run() {
  run_description run;
  run.load_spec = "gen:rate=30,prompt=lognormal:600:0.6,output=uniform:150:0.5,count=200,seed=9";
  run.options = test::tiny_options(8ull << 20, payload_mode::accounting);
  return run;
}

// The service runs exactly what stepping an engine by hand runs.
TEST(RunService, RunsWhatAStepLoopRuns) {
  const auto run = small_run();
  auto by_hand = make_engine(run);
  const auto expected = test::run_rows(*by_hand);
  std::vector<std::string> rows;
  const auto result = run_to_end(run, [&](const engine& e) { rows.push_back(metrics_csv_row(e.last_metrics())); });
  EXPECT_EQ(rows, expected);
  EXPECT_FALSE(result.cancelled);
  EXPECT_EQ(result.summary.steps, expected.size());
  EXPECT_EQ(result.summary.requests_finished, 200u);
}

// Commands apply before the step they name; the logged step count ends the run.
TEST(RunService, AppliesTheCommandLogAndStopsAtTheLoggedStep) {
  auto run = small_run();
  run.commands = {{10, reconfigure_command{*policy_preset("aggressive")}}};
  run.steps = 25;
  std::vector<precision> min_levels;
  const auto result = run_to_end(run, [&](const engine& e) { min_levels.push_back(e.policy().config().min_level); });
  ASSERT_EQ(min_levels.size(), 25u);
  EXPECT_EQ(min_levels[9], precision::fp16);   // step 9 ran before the command
  EXPECT_EQ(min_levels[10], precision::q8);    // the command applied before step 10
  EXPECT_EQ(result.summary.steps, 25u);
}

TEST(RunService, CancelStopsBetweenSteps) {
  const auto run = small_run();
  std::atomic<bool> cancel{false};
  run_hooks hooks;
  hooks.cancel = &cancel;
  hooks.on_step = [&](const engine& e) {
    if (e.steps_done() == 30) cancel = true;
  };
  const auto result = run_to_end(run, hooks);
  EXPECT_TRUE(result.cancelled);
  EXPECT_EQ(result.summary.steps, 30u);
}

TEST(RunService, ProgressReportsTheLoadRead) {
  const auto run = small_run();
  run_hooks hooks;
  hooks.progress_interval_s = 0;  // every check
  std::vector<run_progress> seen;
  hooks.on_progress = [&](const run_progress& p) { seen.push_back(p); };
  const auto result = run_to_end(run, hooks);
  ASSERT_FALSE(seen.empty());
  for (const auto& p : seen) {
    EXPECT_EQ(p.steps % 1024, 0u);
    EXPECT_GE(p.load_fraction, 0.0);
    EXPECT_LE(p.load_fraction, 1.0);
    EXPECT_LE(p.requests_done, p.requests_seen);
  }
}

TEST(RunService, BadOptionsAndLoadsThrowBeforeAnyStep) {
  auto run = small_run();
  run.options.model = "huge";
  EXPECT_THROW((void)run_to_end(run), std::invalid_argument);
  run = small_run();
  run.load_spec = "gen:rate=-1";
  EXPECT_ANY_THROW((void)run_to_end(run));
}

// make_engine takes the run's resolved setup while the options are the ones it was resolved
// from, and resolves afresh once they change (a sweep's copy of the base with another budget).
TEST(RunService, MakeEngineReusesTheSetupOnlyForItsOwnOptions) {
  auto run = small_run();
  ASSERT_TRUE(resolve_run_setup(run).has_value());
  ASSERT_EQ(run.setup->budget_bytes, 8ull << 20);
  auto marked = std::make_shared<engine_setup>(*run.setup);
  marked->budget_bytes = 4ull << 20;  // not what the options say: shows which setup was used
  run.setup = marked;
  EXPECT_EQ(make_engine(run)->setup().budget_bytes, 4ull << 20);
  EXPECT_LE(run_to_end(run).summary.budget_bytes, 4ull << 20);  // the run service goes through it too
  run.options.budget_bytes = 16ull << 20;
  EXPECT_EQ(make_engine(run)->setup().budget_bytes, 16ull << 20);
}

// A roofline run says where its step time went: the terms of the model add up to the step time,
// all-reduces only with tensor parallelism; a linear run has no such parts.
TEST(RunService, RooflineStepTimeSharesAddUpToTheStepTime) {
  auto run = small_run();
  run.options.model = "llama3-8b";
  run.options.gpu = "h100";
  run.options.budget_bytes = 4ull << 30;
  for (const std::uint32_t tp : {1u, 2u}) {
    run.options.tensor_parallel = tp;
    const auto s = run_to_end(run).summary;
    double total = 0;
    for (auto term : {&step_time_totals::matmuls, &step_time_totals::attention, &step_time_totals::all_reduces,
                      &step_time_totals::elementwise, &step_time_totals::overheads}) {
      const double share = step_time_share(s, term);
      EXPECT_GE(share, 0.0);
      total += share;
    }
    EXPECT_NEAR(total, 1.0, 1e-9);
    EXPECT_GT(step_time_share(s, &step_time_totals::matmuls), 0.5);  // decode reads every weight
    EXPECT_EQ(step_time_share(s, &step_time_totals::all_reduces) > 0, tp > 1);
    const std::string text = summary_text(s);
    EXPECT_NE(text.find("\nstep time       matmuls "), std::string::npos);
    EXPECT_EQ(text.find("all-reduces ") != std::string::npos, tp > 1);
  }
  const auto linear = run_to_end(small_run()).summary;
  EXPECT_TRUE(std::isnan(step_time_share(linear, &step_time_totals::matmuls)));
  EXPECT_EQ(summary_text(linear).find("step time"), std::string::npos);
  EXPECT_NE(summary_json(linear).find("\"step_time_share\": {\n    \"matmuls\": null"), std::string::npos);
}

}  // namespace
}  // namespace kvscope
