// A sweep CSV read back as values: the rows sweep_file writes come back as the configs and
// numbers they were made from, and a bad file is refused naming its line.
#include <gtest/gtest.h>

#include <cmath>

#include "sweep/objective.hpp"
#include "sweep/sweep_data.hpp"
#include "sweep/sweep_file.hpp"
#include "sweep/sweep_run.hpp"
#include "sweep/sweep_table.hpp"

namespace kvscope {
namespace {

sweep_plan plan_of(std::string_view grid) { return *grid_plan(*parse_grid(grid)); }

TEST(SweepData, RowsComeBackAsTheConfigsAndNumbersWritten) {
  const auto plan = plan_of("q8_threshold=0.6,0.8 budget=16MiB");
  sweep_file file("unused.csv", sweep_header(plan.columns));
  for (std::size_t i = 0; i < plan.configs.size(); ++i) {
    run_summary s{};
    s.sim_seconds = 1.5 + static_cast<double>(i);
    s.service.goodput_rps = 0.1 * static_cast<double>(i + 1);
    file.add(i, sweep_row(i, plan.columns, plan.configs[i], s));
  }
  const auto data = parse_sweep_data(file.text(), "s.csv");
  ASSERT_TRUE(data) << data.error();
  EXPECT_EQ(data->config_columns, plan.columns);
  EXPECT_EQ(data->metric_columns.size(), sweep_metrics().size());
  ASSERT_EQ(data->rows.size(), 2u);
  const auto goodput = data->metric("goodput_rps");
  ASSERT_TRUE(goodput);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(data->rows[i].index, i);
    EXPECT_EQ(data->rows[i].line, i + 2);
    EXPECT_EQ(data->rows[i].config, plan.configs[i]);
    EXPECT_EQ(data->rows[i].metrics[*goodput], 0.1 * static_cast<double>(i + 1));  // shortest round trip: exact
  }
  EXPECT_EQ(data->column(*goodput), (std::vector<double>{0.1, 0.2}));
}

TEST(SweepData, AConfigThatCouldNotRunHasNanMetricsAndNoEmptySettings) {
  const std::vector<std::string> columns{"q8_threshold", "preset"};
  const sweep_config config{{"q8_threshold", "0.7"}};
  const auto text = sweep_header(columns) + sweep_invalid_row(0, columns, config);
  const auto data = parse_sweep_data(text, "s.csv");
  ASSERT_TRUE(data) << data.error();
  EXPECT_EQ(data->rows[0].config, config);
  for (double v : data->rows[0].metrics) EXPECT_TRUE(std::isnan(v));
}

TEST(SweepData, BadFilesAreRefusedNamingTheFileAndLine) {
  const std::vector<std::string> columns{"q8_threshold"};
  const std::string header = sweep_header(columns);
  auto good = sweep_row(0, columns, {{"q8_threshold", "0.7"}}, run_summary{});
  auto bad_number = good;
  bad_number.replace(bad_number.rfind(','), 1, ",x");
  auto e = parse_sweep_data(header + good + bad_number, "s.csv");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("s.csv:3: column '"), std::string::npos) << e.error();
  EXPECT_NE(e.error().find("is not a number"), std::string::npos) << e.error();

  e = parse_sweep_data(header + "x" + good.substr(1), "s.csv");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("s.csv:2: column 'index'"), std::string::npos) << e.error();

  e = parse_sweep_data("a,b\n1,2\n", "t.csv");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("t.csv:1: not a sweep CSV"), std::string::npos) << e.error();

  e = parse_sweep_data("index,q8_threshold\n0,0.5\n", "t.csv");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("no metric column"), std::string::npos) << e.error();

  // Found by fuzzing: a metric named twice made "the column goodput_rps" mean two columns.
  e = parse_sweep_data("index,q8_threshold,goodput_rps,goodput_rps\n0,0.5,1,2\n", "d.csv");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error(), "d.csv:1: column 'goodput_rps' appears twice in the header");

  e = read_sweep_data("no/such/file.csv");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().find("no/such/file.csv"), std::string::npos) << e.error();
}

TEST(SweepData, MetricCellsAreNumbersOrNan) {
  EXPECT_EQ(metric_cell_number("0.25"), 0.25);
  EXPECT_TRUE(std::isnan(*metric_cell_number("nan")));
  EXPECT_TRUE(std::isnan(*metric_cell_number("")));
  EXPECT_FALSE(metric_cell_number("16MiB"));
  EXPECT_FALSE(metric_cell_number("1x"));
}

TEST(Objective, AMetricsDirectionIsItsBetterWhen) {
  EXPECT_EQ(metric_objective("goodput_rps")->dir, direction::maximize);
  EXPECT_EQ(metric_objective("attention_error_exposure")->dir, direction::minimize);
  EXPECT_FALSE(metric_objective("no_such_metric"));
}

}  // namespace
}  // namespace kvscope
