#include <gtest/gtest.h>

#include <fstream>

#include "engine_test_support.hpp"
#include "sweep/sweep_file.hpp"
#include "sweep/sweep_provenance.hpp"
#include "sweep/sweep_table.hpp"
#include "temp_dir.hpp"
#include "util/atomic_write.hpp"
#include "util/text_file.hpp"

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
  EXPECT_EQ(merged->csv, whole.text());
  auto missing = merge_sweep_files({shards[0], shards[2]});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), "config 1 is in none of the files (a shard missing or unfinished?)");
  // The same shard twice is harmless.
  EXPECT_TRUE(merge_sweep_files({shards[0], shards[1], shards[2], shards[1]}));
}

// The sidecar of a sweep of `plan` over the tiny model at `budget` bytes on a generated load.
std::string provenance(const sweep_plan& plan, std::uint64_t budget, std::string_view checksum = "sha256:0a1b") {
  run_description base;
  base.load_spec = "gen:count=10";
  base.options = test::tiny_options(budget, payload_mode::accounting);
  return sweep_provenance_json(base, plan, checksum, {});
}

// Writes configs `indices` of `plan` to `path` as a sweep with sidecar `sidecar` would.
void write_rows(const std::filesystem::path& path, const sweep_plan& plan, const std::string& sidecar,
                std::initializer_list<std::size_t> indices) {
  sweep_file file(path, sweep_header(plan.columns), sidecar);
  for (auto i : indices) file.add(i, row(i, plan, static_cast<double>(i)));
  ASSERT_TRUE(file.write());
}

// An option recorded only when set (the q4 format): a default base does not name it, a q4o base
// does, and the two are told apart as if both had named it.
TEST(SweepFile, ProvenanceNamesTheQ4FormatOnlyWhenSet) {
  const auto plan = two_axes();
  const std::string plain = provenance(plan, 16ull << 20);
  EXPECT_EQ(plain.find("q4-format"), std::string::npos);
  EXPECT_EQ(plain.find("q4o-channels"), std::string::npos);
  run_description base;
  base.load_spec = "gen:count=10";
  base.options = test::tiny_options(16ull << 20, payload_mode::accounting);
  base.options.q4_storage = q4_format::q4o;
  const std::string q4o = sweep_provenance_json(base, plan, "sha256:0a1b", {});
  EXPECT_NE(q4o.find("\"q4-format\": \"q4o\""), std::string::npos) << q4o;
  for (const auto& [first, second] : {std::pair{plain, q4o}, std::pair{q4o, plain}}) {
    const auto d = compare_provenance(first, "a", second, "b");
    ASSERT_TRUE(d);
    ASSERT_EQ(d->size(), 1u);
    EXPECT_EQ((*d)[0].what, "q4-format");
  }
  EXPECT_EQ(compare_provenance(plain, "a", plain, "b")->size(), 0u);
}

TEST(SweepFile, ResumeRefusesRowsOfAnotherLoadOrBase) {
  test::temp_dir dir;
  const auto plan = two_axes();
  const auto path = dir.file("s.csv");
  write_rows(path, plan, provenance(plan, 16ull << 20), {0, 2});
  EXPECT_EQ(*read_text_file(sweep_provenance_path(path)), provenance(plan, 16ull << 20));
  sweep_file same(path, sweep_header(plan.columns), provenance(plan, 16ull << 20));
  ASSERT_TRUE(same.resume(plan, {}));
  EXPECT_EQ(same.size(), 2u);
  sweep_file bigger(path, sweep_header(plan.columns), provenance(plan, 1ull << 30));
  auto r = bigger.resume(plan, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), path + ": --resume: made from another run: budget: the file made with 16MiB, this "
                                       "sweep with 1GiB (run without --resume to start again, or use another --out)");
  EXPECT_EQ(bigger.size(), 0u);
  sweep_file other_load(path, sweep_header(plan.columns), provenance(plan, 16ull << 20, "sha256:ffff"));
  r = other_load.resume(plan, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("load: the file made with gen:count=10 (sha256:0a1b), this sweep with gen:count=10 "
                           "(sha256:ffff)"),
            std::string::npos)
      << r.error();
  // Another kvscope's file.
  auto text = *read_text_file(sweep_provenance_path(path));
  text.replace(text.find("\"kvscope_version\": \"") + 20, 0, "0.0-other+");
  ASSERT_TRUE(write_file_atomically(sweep_provenance_path(path), text));
  r = same.resume(plan, {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("kvscope version: the file made with 0.0-other+"), std::string::npos) << r.error();
}

TEST(SweepFile, ResumeRefusesAFileWithoutProvenance) {
  test::temp_dir dir;
  const auto plan = two_axes();
  const auto path = dir.file("old.csv");
  write_rows(path, plan, "", {0});  // as a kvscope before sidecars wrote it
  ASSERT_FALSE(std::filesystem::exists(sweep_provenance_path(path)));
  sweep_file file(path, sweep_header(plan.columns), provenance(plan, 16ull << 20));
  auto r = file.resume(plan, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), path + ": --resume: no old.csv.provenance.json beside it (written by a kvscope before "
                                       "sweeps recorded their load and options, or not by sweep): its rows cannot "
                                       "be checked against this sweep; run without --resume to start again");
}

TEST(SweepFile, ResumeRefusesAMetricCellThatIsNotANumber) {
  test::temp_dir dir;
  const auto plan = two_axes();
  const auto path = dir.file("s.csv");
  const std::string header = sweep_header(plan.columns);
  // Column 'budget_bytes' is the first metric: cell 3, after "1,1,y," (7 characters).
  std::string bad = row(1, plan, 1);
  bad.replace(6, bad.find(',', 6) - 6, "abc");
  ASSERT_TRUE(bad.starts_with("1,1,y,abc,")) << bad;
  ASSERT_TRUE(write_file_atomically(path, header + row(0, plan, 0) + bad));
  sweep_file file(path, header);
  auto r = file.resume(plan, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), path + ":3:7: --resume: column 'budget_bytes': 'abc' is not a number (kvscope writes "
                                       "a number or 'nan' there: the row was changed since); delete the line to run "
                                       "config 1 again, or run without --resume");
  // 'nan' is what an unmeasured metric is written as; an empty row is a config that cannot run.
  std::string unmeasured = row(1, plan, 1);
  unmeasured.replace(6, unmeasured.find(',', 6) - 6, "nan");
  ASSERT_TRUE(write_file_atomically(path, header + unmeasured));
  EXPECT_TRUE(sweep_file(path, header).resume(plan, {}));
  ASSERT_TRUE(write_file_atomically(path, header + sweep_invalid_row(1, plan.columns, plan.configs[1])));
  EXPECT_FALSE(sweep_file(path, header).resume(plan, {}));  // config 1 can run: its metrics were deleted
  auto skipping = plan;
  skipping.invalid = {"", "cannot run", "", ""};
  EXPECT_TRUE(sweep_file(path, header).resume(skipping, {}));
}

TEST(SweepFile, MergeRefusesShardsOfAnotherLoadOrBase) {
  test::temp_dir dir;
  const auto plan = two_axes();
  const auto a = dir.file("a.csv"), b = dir.file("b.csv"), old = dir.file("old.csv");
  write_rows(a, plan, provenance(plan, 16ull << 20), {0, 2});
  write_rows(b, plan, provenance(plan, 1ull << 30), {1, 3});
  auto r = merge_sweep_files({a, b});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), b + ": not the same sweep as " + a + ": budget: " + a +
                           " made with 16MiB, " + b + " with 1GiB");
  write_rows(b, plan, provenance(plan, 16ull << 20), {1, 3});
  auto merged = merge_sweep_files({a, b});
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_EQ(merged->provenance, provenance(plan, 16ull << 20));
  EXPECT_EQ(merged->warning, "");
  // A shard without a sidecar among shards with one: refused, naming both.
  write_rows(old, plan, "", {1, 3});
  r = merge_sweep_files({a, old});
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().starts_with(old + ": no " + old + ".provenance.json beside it, but " +
                                    a + " has one"))
      << r.error();
  // Files none of which has one (an older kvscope's shards) merge, with a warning.
  const auto old0 = dir.file("old0.csv");
  write_rows(old0, plan, "", {0, 2});
  merged = merge_sweep_files({old0, old});
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_EQ(merged->provenance, "");
  EXPECT_NE(merged->warning.find("is not checked"), std::string::npos) << merged->warning;
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
