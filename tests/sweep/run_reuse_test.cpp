// Runs that cannot differ (sweep/run_reuse.hpp): each equivalence is proved by running both,
// with reuse and without, and comparing the bytes.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "process.hpp"
#include "run/run_service.hpp"
#include "sweep/config_apply.hpp"
#include "sweep/run_reuse.hpp"
#include "sweep/sweep_run.hpp"
#include "sweep/sweep_table.hpp"
#include "sweep/tune_run.hpp"

namespace kvscope {
namespace {

run_description load_run(const std::string& trace, std::uint64_t budget) {
  run_description run;
  run.load_spec = test::data_path(trace);
  run.options.budget_bytes = budget;
  return run;
}

sweep_plan checked_plan(const std::string& grid) {
  auto axes = parse_grid(grid);
  EXPECT_TRUE(axes) << axes.error();
  auto plan = grid_plan(*axes);
  EXPECT_TRUE(plan) << plan.error();
  return *plan;
}

// Every row of the plan, by index.
std::map<std::size_t, std::string> rows_of(const run_description& base, const sweep_plan& plan, unsigned jobs,
                                           bool reuse) {
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < plan.configs.size(); ++i) todo.push_back(i);
  std::map<std::size_t, std::string> rows;
  std::mutex mutex;
  const std::atomic<bool> cancel{false};
  run_sweep_rows(base, plan, todo, jobs, cancel, nullptr,
                 [&](std::size_t index, std::string row, double) {
                   const std::lock_guard lock(mutex);
                   rows[index] = std::move(row);
                 },
                 reuse);
  return rows;
}

std::size_t repeats_in(const run_description& base, const sweep_plan& plan,
                       const std::map<std::size_t, std::string>& rows) {
  return count_sweep_repeats(base, plan, rows).repeats;
}

constexpr std::uint64_t gib = 1ull << 30;
// q8 0.9 first: a run that kept fp16 precedes configs whose threshold its peak crosses (0.5).
const std::string controller_grid =
    "q8_threshold=0.9,0.5,0.7 q4_threshold=0.95,1 hysteresis=0.02,0.1 ewma_alpha=0.1,0.6 max_level=q8,q4";
// q8 0.5 first: a run whose level moved precedes configs whose thresholds lie above its peak.
const std::string moved_first_grid = "q8_threshold=0.5,0.9 hysteresis=0.02,0.1 ewma_alpha=0.1,0.6";

void expect_same_rows(const run_description& base, const std::string& grid) {
  const sweep_plan plan = checked_plan(grid);
  const auto ran = rows_of(base, plan, 1, false);
  ASSERT_EQ(ran.size(), plan.configs.size());
  EXPECT_EQ(rows_of(base, plan, 1, true), ran) << base.load_spec << " " << base.options.budget_bytes << " " << grid;
  EXPECT_EQ(rows_of(base, plan, 2, true), ran) << base.load_spec << " " << base.options.budget_bytes << " " << grid;
}

// Loads light (azure at 8 GiB peaks at 0.68: under some thresholds, over others) and heavy
// (azure at 2 GiB and mooncake at 64 GiB cross every threshold).
TEST(RunReuse, SweepRowsAreTheSameBytesWithAndWithoutReuse) {
  for (const auto& [trace, budget] : {std::pair{"azure_conv_500.csv", 8 * gib}, std::pair{"azure_conv_500.csv", 2 * gib},
                                      std::pair{"mooncake_200.jsonl", 64 * gib}}) {
    expect_same_rows(load_run(trace, budget), controller_grid);
  }
  expect_same_rows(load_run("azure_conv_500.csv", 8 * gib), moved_first_grid);
}

// The light load reuses; the count comes from the rows, so it is the same with or without reuse.
TEST(RunReuse, ALightLoadReusesAndAHeavyOneDoesNot) {
  const sweep_plan plan = checked_plan(controller_grid);
  const run_description light = load_run("azure_conv_500.csv", 8 * gib);
  const auto light_rows = rows_of(light, plan, 1, true);
  // q8 0.7 and 0.9 lie above the peak (0.68): 2 x 16 configs, all but the first repeat it.
  EXPECT_EQ(repeats_in(light, plan, light_rows), 31u);
  const run_description heavy = load_run("azure_conv_500.csv", 2 * gib);
  EXPECT_EQ(repeats_in(heavy, plan, rows_of(heavy, plan, 1, true)), 0u);
}

// A resumed sweep reuses the rows it kept: a kept row marked in a cell no rule reads lends its
// mark to the configs that reuse it, and unmarked, they are the rows of the sweep run whole.
TEST(RunReuse, AResumedSweepReusesTheRowsItKept) {
  const run_description base = load_run("azure_conv_500.csv", 8 * gib);
  // 0: q8 0.9 alpha 0.2 (kept), 1: q8 0.9, 2-3: q8 0.5 (its level moves), 4-5: q8 0.7.
  const sweep_plan plan = checked_plan("q8_threshold=0.9,0.5,0.7 ewma_alpha=0.2,0.9");
  const auto whole = rows_of(base, plan, 1, false);
  const auto resumed = [&](const std::string& kept_row) {
    std::map<std::size_t, std::string> rest;
    const std::atomic<bool> go{false};
    run_sweep_rows(base, plan, {1, 2, 3, 4, 5}, 1, go, nullptr,
                   [&](std::size_t index, std::string row, double) { rest[index] = std::move(row); }, true,
                   {{0, kept_row}});
    return rest;
  };
  std::string marked = whole.at(0);
  ASSERT_TRUE(marked.ends_with(",nan\n"));  // attention_error_measured: unmeasured in accounting mode
  marked.replace(marked.size() - 4, 3, "42");
  const auto from_marked = resumed(marked);
  for (std::size_t i : {1, 4, 5}) EXPECT_TRUE(from_marked.at(i).ends_with(",42\n")) << from_marked.at(i);
  for (std::size_t i : {2, 3}) EXPECT_EQ(from_marked.at(i), whole.at(i));
  auto from_kept = resumed(whole.at(0));
  from_kept[0] = whole.at(0);
  EXPECT_EQ(from_kept, whole);
}

// A reused row is not run: with the run cancelled from the start, only reuse gives a row.
TEST(RunReuse, AReusedRowIsNotRunAgain) {
  const run_description base = load_run("azure_conv_500.csv", 8 * gib);
  const sweep_plan plan = checked_plan("q8_threshold=0.5,0.9,0.95 ewma_alpha=0.2,0.9");
  reuse_cache<std::string> cache;
  const std::atomic<bool> go{false}, stop{true};
  const auto first_high = sweep_config_row(base, plan, 2, &go, &cache);  // q8 0.9, alpha 0.2
  ASSERT_TRUE(first_high);
  EXPECT_TRUE(sweep_config_row(base, plan, 3, &stop, &cache));    // q8 0.9, alpha 0.9: reused
  EXPECT_TRUE(sweep_config_row(base, plan, 5, &stop, &cache));    // q8 0.95, alpha 0.9: reused
  EXPECT_FALSE(sweep_config_row(base, plan, 0, &stop, &cache));   // earlier than the run: not offered
  EXPECT_FALSE(sweep_config_row(base, plan, 1, &stop, &cache));   // earlier than the run: not offered
  // Its row carries its own config's values.
  EXPECT_EQ(*sweep_config_row(base, plan, 5, &stop, &cache),
            *sweep_config_row(base, plan, 5, &go, nullptr));
}

TEST(RunReuse, ThresholdsAtOrBelowThePeakAreRunAgain) {
  const run_description base = load_run("azure_conv_500.csv", 8 * gib);
  const auto donor = run_to_end(base).summary;
  ASSERT_EQ(donor.level_transitions, 0u);  // the default q8 threshold, 0.8, is above its peak
  const reuse_facts facts = facts_of(donor);
  run_description other = base;
  other.options.policy.ewma_alpha = 0.9f;
  other.options.policy.hysteresis = 0.3f;
  other.options.policy.max_level = precision::q8;
  EXPECT_TRUE(repeats_run(base, facts, other));
  other.options.policy.q8_threshold = static_cast<float>(facts.peak_usage);  // the EWMA may reach it
  EXPECT_FALSE(repeats_run(base, facts, other));
  other.options.policy.q8_threshold = 0.95f;
  other.options.policy.min_level = precision::q8;  // another constant level
  EXPECT_FALSE(repeats_run(base, facts, other));
  other.options.policy.min_level = precision::fp16;
  other.options.budget_bytes = 9 * gib;  // anything but the policy is another run
  EXPECT_FALSE(repeats_run(base, facts, other));
  other.options.budget_bytes = base.options.budget_bytes;
  other.commands.push_back({10, reconfigure_command{}});  // a command log may change the policy
  EXPECT_FALSE(repeats_run(base, facts, other));
  run_description alpha_only = base;
  alpha_only.options.policy.ewma_alpha = 0.9f;
  EXPECT_TRUE(repeats_run(base, facts, alpha_only));
  reuse_facts moved = facts;
  moved.level_transitions = 1;
  EXPECT_FALSE(repeats_run(base, moved, alpha_only));  // where a level moved, alpha moves it elsewhere
  EXPECT_TRUE(repeats_run(base, moved, base));          // the same run twice
}

// Families without a controller read no threshold, hysteresis, alpha or level range, and each
// reads only its own parameters: equal rows even at a load that crosses every threshold.
TEST(RunReuse, FamiliesIgnoreTheFieldsTheyDoNotRead) {
  const run_description base = load_run("azure_conv_500.csv", 2 * gib);
  const sweep_plan plan = checked_plan(
      "family=static,age,sinks_recent,ewma fixed_level=q8,q4 q8_age_tokens=256,512 q8_threshold=0.5,0.9 "
      "ewma_alpha=0.1,0.6 min_level=fp16,q8");
  const auto ran = rows_of(base, plan, 1, false);
  EXPECT_EQ(rows_of(base, plan, 2, true), ran);
  // Per family 32 configs: static keeps fixed_level (2 runs), age its age tokens (2), sinks_recent
  // fixed_level (2), ewma min_level x q8 x alpha but not fixed_level or the age tokens (8).
  EXPECT_EQ(repeats_in(base, plan, ran), 4 * 32u - (2 + 2 + 2 + 8));
}

// A level range of one level: the controller's fields do nothing, even under heavy pressure.
TEST(RunReuse, ARangeOfOneLevelIgnoresTheController) {
  const run_description base = load_run("azure_conv_500.csv", 2 * gib);
  const sweep_plan plan =
      checked_plan("min_level=q8,fp16 max_level=q8 q8_threshold=0.5,0.9 ewma_alpha=0.1,0.6 hysteresis=0.02,0.2");
  const auto ran = rows_of(base, plan, 1, false);
  EXPECT_EQ(rows_of(base, plan, 2, true), ran);
  // min_level q8: one run for 8 configs; min_level fp16 (q8 reachable): every config its own.
  EXPECT_EQ(repeats_in(base, plan, ran), 7u);
}

// The first 500 requests of the Azure trace on an H100 under SLOs, and the capacity problem of a
// grid with an attention error budget of 2 %.
run_description capacity_base(std::uint64_t budget) {
  run_description base = load_run("azure_conv_500.csv", budget);
  base.options.gpu = "h100";
  base.options.slo = "ttft=1,tpot=0.05";
  return base;
}

tune_problem capacity_problem(const std::string& grid) {
  tune_problem problem;
  problem.axes = *parse_grid(grid);
  problem.goal = {std::string(capacity_metric), direction::maximize};
  problem.constraints = {*parse_constraint("attention_error_exposure<=0.02", "--constraint")};
  return problem;
}

// A capacity tune of `problem` over `base` with `options` (the load's rate and count filled in):
// its result and how many engine runs it made.
std::pair<tune_result, std::size_t> capacity_tune(const run_description& base, const tune_problem& problem,
                                                  tune_method method, tune_run_options options) {
  const load_facts facts = read_load_facts(base);
  options.load_rate = facts.rate();
  options.load_requests = facts.requests;
  std::atomic<std::size_t> runs{0};
  auto result = tune_search(problem, method, make_tune_evaluator(base, problem, options, runs));
  return {std::move(result), runs.load()};
}

// The same configs in the same order, with the same scores to the byte.
void expect_same_trials(const tune_result& a, const tune_result& b) {
  ASSERT_EQ(a.trials.size(), b.trials.size());
  for (std::size_t t = 0; t < a.trials.size(); ++t) {
    EXPECT_EQ(a.trials[t].index, b.trials[t].index) << t;
    const auto& x = a.trials[t].score;
    const auto& y = b.trials[t].score;
    EXPECT_EQ(x.detail, y.detail) << t;
    EXPECT_EQ(x.objective, y.objective) << t;
    EXPECT_EQ(x.objective_high, y.objective_high) << t;
    EXPECT_EQ(x.figures, y.figures) << t;
  }
}

// tune: capacity probes at one rate factor reuse an earlier config's, and every score is the same.
TEST(RunReuse, CapacityProbesReuseAndScoreTheSame) {
  const run_description base = capacity_base(8 * gib);
  const tune_problem problem = capacity_problem("q8_threshold=0.5,0.9,0.95 ewma_alpha=0.2,0.8");
  const auto search = [&](bool reuse, unsigned jobs) {
    tune_run_options options;
    options.jobs = jobs;
    options.reuse = reuse;
    return capacity_tune(base, problem, tune_method::grid, options);
  };
  const auto [ran, ran_runs] = search(false, 1);
  for (unsigned jobs : {1u, 2u}) {
    const auto [reused, reused_runs] = search(true, jobs);
    EXPECT_EQ(reused_runs, ran_runs);
    expect_same_trials(reused, ran);
    EXPECT_EQ(count_tune_repeats(base, problem, reused), count_tune_repeats(base, problem, ran));
  }
  EXPECT_GT(count_tune_repeats(base, problem, ran), 0u);
}

// tune: a capacity search started from the nearest scored config's capacity ends where the search
// from 1 does on this load, in fewer runs, and with any jobs the same bytes (its hints come from
// earlier batches only).
TEST(RunReuse, CapacityHintsKeepTheAnswerInFewerRuns) {
  const run_description base = capacity_base(4 * gib);
  const tune_problem problem = capacity_problem("q8_threshold=0.5,0.7,0.9 q4_threshold=0.95,1 hysteresis=0.02,0.1");
  const auto search = [&](bool hints, unsigned jobs) {
    tune_run_options options;
    options.jobs = jobs;
    options.capacity_hints = hints;
    return capacity_tune(base, problem, tune_method::descent, options);
  };
  const auto [cold, cold_runs] = search(false, 1);
  const auto [warm, warm_runs] = search(true, 1);
  EXPECT_EQ(warm.best_index, cold.best_index);
  EXPECT_EQ(warm.score.objective, cold.score.objective);
  EXPECT_EQ(warm.score.objective_high, cold.score.objective_high);
  EXPECT_LT(warm_runs, cold_runs);
  bool hinted = false;
  for (const auto& t : warm.trials) hinted = hinted || t.score.detail.find("searched from config") != std::string::npos;
  EXPECT_TRUE(hinted);
  const auto [warm2, warm2_runs] = search(true, 2);
  EXPECT_EQ(warm2_runs, warm_runs);
  expect_same_trials(warm2, warm);
}

}  // namespace
}  // namespace kvscope
