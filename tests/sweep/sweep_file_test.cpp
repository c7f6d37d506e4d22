#include <gtest/gtest.h>

#include <fstream>

#include "sweep/sweep_file.hpp"
#include "sweep/sweep_table.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

sweep_plan two_axes() {
  auto plan = grid_plan(*parse_grid("a=1,2 b=x,y"));
  return *plan;
}

std::string row(std::size_t index, const sweep_plan& plan, double value) {
  run_summary s{};
  s.sim_seconds = value;
  return sweep_row(index, plan.columns, plan.configs[index], s);
}

TEST(SweepFile, RowsComeOutInIndexOrderWhateverOrderTheyArrive) {
  test::temp_dir dir;
  const auto plan = two_axes();
  sweep_file file(dir.file("s.csv"), sweep_header(plan.columns));
  file.add(2, row(2, plan, 2));
  file.add(0, row(0, plan, 0));
  file.add(3, row(3, plan, 3));
  file.add(1, row(1, plan, 1));
  EXPECT_EQ(file.text(), sweep_header(plan.columns) + row(0, plan, 0) + row(1, plan, 1) + row(2, plan, 2) + row(3, plan, 3));
  EXPECT_TRUE(file.text().starts_with("index,a,b,budget_bytes,"));
  EXPECT_EQ(file.text().find("wall_seconds"), std::string::npos);
  EXPECT_EQ(file.text().find("decode_token_steps_per_s"), std::string::npos);
  EXPECT_NE(file.text().find(",transitions_per_hour,"), std::string::npos);
}

TEST(SweepFile, ResumeTakesTheSameSweepsRowsAndRefusesAnothers) {
  test::temp_dir dir;
  const auto plan = two_axes();
  const auto path = dir.file("s.csv");
  {
    sweep_file first(path, sweep_header(plan.columns));
    first.add(0, row(0, plan, 0));
    first.add(2, row(2, plan, 2));
    ASSERT_TRUE(first.write());
  }
  sweep_file again(path, sweep_header(plan.columns));
  ASSERT_TRUE(again.resume(plan, {}));
  EXPECT_TRUE(again.has(0));
  EXPECT_FALSE(again.has(1));
  EXPECT_TRUE(again.has(2));
  // Another grid with the same columns: config 2 is a=2,b=x there, not a=2,b=x... with other values.
  const auto other = *grid_plan(*parse_grid("a=1,3 b=x,y"));
  sweep_file mismatch(path, sweep_header(other.columns));
  auto r = mismatch.resume(other, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("s.csv:3: --resume: config 2 has a='2', this sweep has '3'"), std::string::npos) << r.error();
  // Another header.
  sweep_file columns(path, sweep_header({"a"}));
  EXPECT_FALSE(columns.resume(*grid_plan(*parse_grid("a=1,2")), {}));
  // A shard that does not take config 2.
  sweep_file shard(path, sweep_header(plan.columns));
  EXPECT_FALSE(shard.resume(plan, {1, 2}));
  // No file yet: nothing to resume, no error.
  sweep_file fresh(dir.file("none.csv"), sweep_header(plan.columns));
  EXPECT_TRUE(fresh.resume(plan, {}));
}

TEST(SweepFile, ShardsMergeIntoTheOneProcessFile) {
  test::temp_dir dir;
  const auto plan = two_axes();
  sweep_file whole(dir.file("all.csv"), sweep_header(plan.columns));
  std::vector<std::filesystem::path> shards;
  for (std::size_t k = 0; k < 3; ++k) {
    const sweep_shard shard{k, 3};
    sweep_file part(dir.file("s" + std::to_string(k) + ".csv"), sweep_header(plan.columns));
    for (std::size_t i = 0; i < plan.configs.size(); ++i) {
      if (shard.takes(i)) part.add(i, row(i, plan, static_cast<double>(i)));
    }
    ASSERT_TRUE(part.write());
    shards.push_back(part.path());
  }
  for (std::size_t i = 0; i < plan.configs.size(); ++i) whole.add(i, row(i, plan, static_cast<double>(i)));
  auto merged = merge_sweep_files({shards[2], shards[0], shards[1]});
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_EQ(*merged, whole.text());
  auto missing = merge_sweep_files({shards[0], shards[2]});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), "config 1 is in none of the files (a shard missing or unfinished?)");
  // The same shard twice is harmless.
  EXPECT_TRUE(merge_sweep_files({shards[0], shards[1], shards[2], shards[1]}));
}

TEST(SweepFile, ShardSpelling) {
  EXPECT_EQ(parse_shard("2/4")->part, 2u);
  EXPECT_EQ(parse_shard("2/4")->count, 4u);
  for (const char* bad : {"4/4", "1", "a/b", "1/0", "-1/2", "1/2/3"}) EXPECT_FALSE(parse_shard(bad)) << bad;
}

TEST(SweepTable, CsvRoundTripsQuotedCells) {
  auto t = parse_csv("index,slo,x\n0,\"ttft=0.5,tpot=0.05\",1\n1,\"say \"\"hi\"\"\",2\n", "t.csv");
  ASSERT_TRUE(t) << t.error();
  EXPECT_EQ(t->rows[0][1], "ttft=0.5,tpot=0.05");
  EXPECT_EQ(t->rows[1][1], "say \"hi\"");
  EXPECT_EQ(csv_cell("ttft=0.5,tpot=0.05"), "\"ttft=0.5,tpot=0.05\"");
  EXPECT_EQ(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
  auto short_row = parse_csv("a,b\n1\n", "t.csv");
  ASSERT_FALSE(short_row);
  EXPECT_EQ(short_row.error(), "t.csv:2: row has 1 cells, the header has 2");
}

}  // namespace
}  // namespace kvscope
