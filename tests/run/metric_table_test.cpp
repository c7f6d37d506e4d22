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

// q3 came after the other columns: the header up to attention_error_exposure is as it was, and
// q3's columns follow it, so whatever reads the CSV by position still finds its columns.
TEST(MetricTable, Q3ColumnsComeAfterTheOthers) {
  const auto header = metrics_csv_header();
  const std::string before = "step_seconds,kv_bytes_read_fp16,kv_bytes_read_q8,kv_bytes_read_fp8,"
                             "kv_bytes_read_q4,attention_error_exposure,";
  const std::string q3 = "bytes_q3,quant_rel_rmse_q3,attention_rel_l2_q3,kv_bytes_read_q3";
  EXPECT_NE(header.find(before + q3), std::string::npos) << header;
  EXPECT_TRUE(header.ends_with(q3)) << header;
  EXPECT_NE(header.find(",bytes_fp16,bytes_q8,bytes_fp8,bytes_q4,scale_bytes,"), std::string::npos) << header;
  step_metrics m;
  m.bytes_per_level = {1, 2, 3, 4, 5};
  m.quant_rel_rmse[ordinal(precision::q3)] = 0.25;
  m.kv_bytes_read[ordinal(precision::q3)] = 9;
  EXPECT_TRUE(metrics_csv_row(m).ends_with(",5,0.25,nan,9")) << metrics_csv_row(m);
}

// A run that stores its cold blocks at q3 says so in the summary: q3's peak bytes and measured
// error, nested beside the other levels', and the text's peak bytes line.
TEST(MetricTable, SummaryCarriesQ3) {
  run_description run;
  run.load_spec = "gen:rate=30,prompt=lognormal:300:0.6,output=uniform:80:0.5,count=40,seed=3";
  run.options.model = "tiny";
  run.options.budget_bytes = 4ull << 20;
  run.options.payload = payload_mode::data;
  run.options.quality_every = 7;
  run.options.policy.family = policy_family::fixed;
  run.options.policy.fixed_level = precision::q3;
  const auto summary = run_to_end(run).summary;
  ASSERT_GT(summary.peak_bytes_per_level[ordinal(precision::q3)], 0u);
  const auto j = nlohmann::ordered_json::parse(summary_json(summary));
  std::vector<std::string> levels;
  for (const auto& [level, bytes] : j["peak_bytes_per_level"].items()) levels.push_back(level);
  EXPECT_EQ(levels, (std::vector<std::string>{"fp16", "q8", "fp8", "q4", "q3"}));
  EXPECT_EQ(j["peak_bytes_per_level"]["q3"].get<std::uint64_t>(), summary.peak_bytes_per_level[ordinal(precision::q3)]);
  EXPECT_GT(j["quality"]["q3"]["quant_rel_rmse"].get<double>(), 0);
  EXPECT_GT(j["quality"]["q3"]["attention_rel_l2"].get<double>(), 0);
  EXPECT_NE(summary_text(summary).find(" q3 "), std::string::npos) << summary_text(summary);
}

}  // namespace
}  // namespace kvscope
