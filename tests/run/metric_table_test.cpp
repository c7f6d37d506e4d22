#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "io/metrics_csv.hpp"
#include "io/summary_format.hpp"
#include "run/metric_table.hpp"
#include "run/run_service.hpp"

namespace kvscope {
namespace {

TEST(MetricTable, KeysAreUniqueAndDescribed) {
  std::set<std::string_view> keys;
  for (const auto& m : step_metric_table()) {
    EXPECT_TRUE(keys.insert(m.info.key).second) << m.info.key;
    EXPECT_FALSE(m.info.meaning.empty()) << m.info.key;
  }
  keys.clear();
  for (const auto& m : summary_metric_table()) {
    EXPECT_TRUE(keys.insert(m.info.key).second) << m.info.key;
    EXPECT_FALSE(m.info.meaning.empty()) << m.info.key;
  }
  ASSERT_NE(find_metric("num_preemptions_total"), nullptr);
  EXPECT_EQ(find_metric("num_preemptions_total")->better, better_when::lower);
  EXPECT_EQ(find_metric("no_such_metric"), nullptr);
}

// The CSV header is the step table's keys; a row has one cell per key.
TEST(MetricTable, CsvColumnsAreTheStepTable) {
  std::string expected;
  for (const auto& m : step_metric_table()) expected += (expected.empty() ? "" : ",") + std::string(m.info.key);
  EXPECT_EQ(metrics_csv_header(), expected);
  step_metrics m;
  m.step = 7;
  m.level = precision::q4;
  const auto row = metrics_csv_row(m);
  EXPECT_EQ(std::count(row.begin(), row.end(), ','), std::count(expected.begin(), expected.end(), ','));
  EXPECT_EQ(row.rfind("7,0,0,0,q4,", 0), 0u) << row;
}

// Every summary metric is in the JSON at its dotted path, with the value the table reads.
TEST(MetricTable, SummaryJsonHoldsEveryMetricAtItsPath) {
  run_description run;
  run.load_spec = "gen:rate=20,prompt=lognormal:300:0.5,output=uniform:50:0.5,count=40,seed=2";
  run.options.model = "tiny";
  run.options.budget_bytes = 4ull << 20;
  const auto summary = run_to_end(run).summary;
  const auto j = nlohmann::json::parse(summary_json(summary));
  for (const auto& m : summary_metric_table()) {
    const auto pointer = "/" + [&] {
      std::string p(m.info.key);
      std::replace(p.begin(), p.end(), '.', '/');
      return p;
    }();
    ASSERT_TRUE(j.contains(nlohmann::json::json_pointer(pointer))) << m.info.key;
  }
  EXPECT_EQ(j["requests_finished"].get<std::uint64_t>(), summary.requests_finished);
  EXPECT_EQ(j["requests_finished"].get<std::uint64_t>(), 40u);
  EXPECT_TRUE(j["quality"]["q4"]["quant_rel_rmse"].is_null()) << "never measured in accounting mode";
}

}  // namespace
}  // namespace kvscope
