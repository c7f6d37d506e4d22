#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/metrics_csv.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

TEST(MetricsCsv, HeaderAndRowHaveTheSameColumns) {
  step_metrics m;
  m.step = 7;
  m.sim_time_s = 0.1;
  m.level = precision::q8;
  m.bytes_per_level = {1, 2, 3, 4};
  m.quant_rel_rmse[1] = 0.004;
  const auto header = metrics_csv_header();
  const auto row = metrics_csv_row(m);
  EXPECT_EQ(std::count(header.begin(), header.end(), ','), std::count(row.begin(), row.end(), ','));
  EXPECT_EQ(header.rfind("step,sim_time_s,kv_cache_usage_perc,pressure_ewma,level,", 0), 0u);
  EXPECT_EQ(row.rfind("7,0.1,0,0,q8,1,2,3,4,", 0), 0u) << row;
  EXPECT_NE(row.find(",nan,0.004,nan,nan,"), std::string::npos) << row;
}

TEST(MetricsCsv, WritesAtomicallyOnFinishOnly) {
  test::temp_dir dir;
  const auto path = dir.file("m.csv");
  {
    metrics_csv_writer w;
    ASSERT_TRUE(w.open(path).has_value());
    w.write(step_metrics{});
    EXPECT_FALSE(std::filesystem::exists(path));  // still under a temporary name
  }  // destroyed without finish(): nothing left behind
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));

  metrics_csv_writer w;
  ASSERT_TRUE(w.open(path).has_value());
  for (int i = 0; i < 3; ++i) {
    step_metrics m;
    m.step = static_cast<std::uint64_t>(i);
    w.write(m);
  }
  ASSERT_TRUE(w.finish().has_value());
  std::ifstream in(path);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 4);
}

TEST(MetricsCsv, OpenFailureNamesThePath) {
  test::temp_dir dir;
  metrics_csv_writer w;
  const auto r = w.open(dir.file("missing/m.csv"));
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().find("missing/m.csv: cannot create"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace kvscope
