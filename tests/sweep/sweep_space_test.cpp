#include <gtest/gtest.h>

#include <filesystem>

#include "engine_test_support.hpp"
#include "process.hpp"
#include "run/run_service.hpp"
#include "run/run_summary.hpp"
#include "sweep/config_apply.hpp"
#include "sweep/sweep_space.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

sweep_plan grid(std::string_view text) {
  auto axes = parse_grid(text);
  EXPECT_TRUE(axes) << (axes ? "" : axes.error());
  auto plan = grid_plan(*axes);
  EXPECT_TRUE(plan) << (plan ? "" : plan.error());
  return *plan;
}

// The cartesian product in the order the axes are given, the last axis fastest.
TEST(SweepSpace, GridOrderIsAnOdometer) {
  const auto plan = grid("q8_threshold=0.6,0.8 ewma_alpha=0.1,0.5 hysteresis=0.02,0.08");
  EXPECT_EQ(plan.columns, (std::vector<std::string>{"q8_threshold", "ewma_alpha", "hysteresis"}));
  ASSERT_EQ(plan.configs.size(), 8u);
  EXPECT_EQ(describe(plan.configs[0]), "q8_threshold=0.6 ewma_alpha=0.1 hysteresis=0.02");
  EXPECT_EQ(describe(plan.configs[1]), "q8_threshold=0.6 ewma_alpha=0.1 hysteresis=0.08");
  EXPECT_EQ(describe(plan.configs[2]), "q8_threshold=0.6 ewma_alpha=0.5 hysteresis=0.02");
  EXPECT_EQ(describe(plan.configs[7]), "q8_threshold=0.8 ewma_alpha=0.5 hysteresis=0.08");
}

TEST(SweepSpace, RangesQuotesAndLists) {
  const auto plan = grid("q8_threshold=0.5:0.6:0.05,0.9  slo=\"ttft=0.5,tpot=0.05\",ttft=1");
  ASSERT_EQ(plan.configs.size(), 8u);
  EXPECT_EQ(*find_setting(plan.configs[0], "slo"), "ttft=0.5,tpot=0.05");
  EXPECT_EQ(*find_setting(plan.configs[1], "slo"), "ttft=1");
  EXPECT_EQ(*find_setting(plan.configs[6], "q8_threshold"), "0.9");
  EXPECT_EQ(describe(plan.configs[0]), "q8_threshold=0.5 slo=\"ttft=0.5,tpot=0.05\"");
}

TEST(SweepSpace, GridErrorsNameTheAxis) {
  const auto error = [](std::string_view text) {
    auto axes = parse_grid(text);
    EXPECT_FALSE(axes) << text;
    return axes ? std::string() : axes.error();
  };
  EXPECT_EQ(error("a=1 a=2"), "--grid: axis 'a': given twice");
  EXPECT_EQ(error("a=1,,2"), "--grid: axis 'a': an empty value");
  EXPECT_EQ(error("a=0.5:0.9:0"), "--grid: axis 'a': '0.5:0.9:0': the step must not be 0");
  EXPECT_EQ(error("novalue"), "--grid: 'novalue': expected NAME=VALUE");
  EXPECT_EQ(error("a=\"1"), "--grid: a double quote is not closed");
  EXPECT_EQ(error("  "), "--grid: no axes (expected NAME=V1,V2 ...)");
}

TEST(SweepSpace, ConfigLinesSkipCommentsAndNameTheirLine) {
  auto plan = parse_config_lines("# configs\nq8_threshold=0.6 budget=8MiB\n\nmodel=tiny  # a comment\n", "c.txt");
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_EQ(plan->columns, (std::vector<std::string>{"q8_threshold", "budget", "model"}));
  ASSERT_EQ(plan->configs.size(), 2u);
  EXPECT_EQ(plan->origins[1], "c.txt:4");
  auto bad = parse_config_lines("q8_threshold=0.6\nq8_threshold=0.6,0.7\n", "c.txt");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "c.txt:2: 'q8_threshold': one value per config (quote a value with commas)");
  EXPECT_FALSE(parse_config_lines("# nothing\n", "c.txt"));
}

TEST(SweepSpace, ConfigsApplyThroughTheOptionTable) {
  run_description base;
  base.options = test::tiny_options(8ull << 20, payload_mode::accounting);
  run_description run = base;
  ASSERT_TRUE(apply_config(run, {{"q8_threshold", "0.6"}, {"budget", "16MiB"}, {"max-num-seqs", "7"}}));
  EXPECT_EQ(run.options.policy.q8_threshold, 0.6f);
  EXPECT_EQ(run.options.budget_bytes, 16ull << 20);
  EXPECT_EQ(run.options.scheduler.max_num_seqs, 7u);
  // A preset replaces the whole policy first, wherever it stands; later fields still apply.
  run = base;
  ASSERT_TRUE(apply_config(run, {{"hysteresis", "0.1"}, {"preset", "aggressive"}}));
  EXPECT_EQ(run.options.policy.q8_threshold, policy_preset("aggressive")->q8_threshold);
  EXPECT_EQ(run.options.policy.hysteresis, 0.1f);
  // rate_scale: the load's arrivals, faster or slower.
  run = base;
  ASSERT_TRUE(apply_config(run, {{"rate_scale", "4"}}));
  EXPECT_EQ(run.arrival_time_scale, 0.25);
  EXPECT_FALSE(apply_config(run, {{"rate_scale", "0"}}));
  EXPECT_FALSE(apply_config(run, {{"rate_scale", "fast"}}));
  EXPECT_TRUE(is_policy_setting("ewma_alpha"));
  EXPECT_FALSE(is_policy_setting("budget"));
}

TEST(SweepSpace, CheckPlanRefusesBeforeAnyRun) {
  run_description base;
  base.options = test::tiny_options(8ull << 20, payload_mode::accounting);
  const auto check = [&](std::string_view text, bool invalid_ok = false) {
    return check_plan(base, grid(text), invalid_ok);
  };
  auto unknown = check("q8_threshold=0.6 foo=1");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().find("--grid: config 0 (q8_threshold=0.6 foo=1): unknown option 'foo'"), std::string::npos)
      << unknown.error();
  auto range = check("q8_threshold=0.6,1.5");
  ASSERT_FALSE(range);
  EXPECT_NE(range.error().find("config 1 (q8_threshold=1.5)"), std::string::npos) << range.error();
  EXPECT_NE(range.error().find("--q8-threshold: expected a number in [0, 1], got '1.5'"), std::string::npos);
  // A combination the policy refuses: an error, or with invalid_ok a reason at its index.
  EXPECT_FALSE(check("q8_threshold=0.5,0.96"));
  auto skipped = check("q8_threshold=0.5,0.96", true);
  ASSERT_TRUE(skipped) << skipped.error();
  EXPECT_EQ((*skipped)[0], "");
  EXPECT_NE((*skipped)[1].find("q4_threshold must be >= q8_threshold"), std::string::npos) << (*skipped)[1];
  // Bad values stay errors even then.
  EXPECT_FALSE(check("q8_threshold=x", true));
}

// A sweep reads the model file once, for its base: checking the plan and running each config take
// the base's model instead of reading the file again (which could have changed in between).
TEST(SweepSpace, ConfigsTakeTheBaseModelInsteadOfReadingItAgain) {
  test::temp_dir dir;
  const std::string model = dir.file("model.json");
  test::write_text(model, test::read_text(test::data_path("../../resources/models/tiny.json")));
  run_description base;
  base.load_spec = "gen:rate=20,prompt=fixed:64,output=fixed:8,duration=2,seed=3";
  base.options = test::tiny_options(8ull << 20, payload_mode::accounting);
  base.options.model = model;
  ASSERT_TRUE(resolve_run_setup(base));
  std::filesystem::remove(model);  // any read from here on fails
  const auto plan = grid("max_num_seqs=4,8 q8_threshold=0.6");
  auto checked = check_plan(base, plan);
  ASSERT_TRUE(checked) << checked.error();
  for (const auto& config : plan.configs) {
    const run_description run = config_run(base, config);
    ASSERT_TRUE(run.setup);
    EXPECT_EQ(run.setup->options, run.options);
    EXPECT_GT(run_to_end(run).summary.requests_finished, 0u);
  }
  // A config naming another model still reads its own (and says why it cannot here).
  EXPECT_FALSE(check_plan(base, grid("model=" + model + ".missing")));
}

// One option under two spellings would run with the last one's value while the CSV shows both.
TEST(SweepSpace, OneOptionUnderTwoSpellingsIsRefused) {
  run_description base;
  base.options = test::tiny_options(8ull << 20, payload_mode::accounting);
  auto twice = check_plan(base, grid("q8_threshold=0.6 q8-threshold=0.7"));
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error(),
            "--grid: 'q8_threshold' (--grid) and 'q8-threshold' name the same option --q8-threshold: spell it one way");
  // By its flag and by its session key, too.
  EXPECT_FALSE(check_plan(base, grid("max_num_seqs=4 max-num-seqs=8")));
  EXPECT_FALSE(check_plan(base, grid("budget=8MiB budget_bytes=16MiB")));
  // In a configs file, across lines: named with both lines.
  auto lines = parse_config_lines("q8_threshold=0.6\n# a comment\nq8-threshold=0.7\n", "c.txt");
  ASSERT_TRUE(lines) << lines.error();
  auto across = check_plan(base, *lines);
  ASSERT_FALSE(across);
  EXPECT_EQ(across.error(),
            "c.txt:3: 'q8_threshold' (c.txt:1) and 'q8-threshold' name the same option --q8-threshold: spell it one way");
  // Different options that look alike are fine.
  EXPECT_TRUE(check_plan(base, grid("q8_threshold=0.6 q4_threshold=0.97")));
}

}  // namespace
}  // namespace kvscope
