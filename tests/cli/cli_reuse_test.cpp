// `sweep` and `tune` run once what cannot differ, say so, and write what --no-reuse writes.
#include <gtest/gtest.h>

#include <regex>

#include <nlohmann/json.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

// Azure at 8 GiB peaks at 0.68: q8 0.9 is never reached, q8 0.5 is.
std::vector<std::string> light_args(const std::string& command, std::vector<std::string> more) {
  std::vector<std::string> a{cli_path(), command, "--load", data_path("azure_conv_500.csv"), "--model", "llama3-8b",
                             "--budget", "8GiB"};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

nlohmann::json json_file(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

TEST(CliReuse, SweepSaysWhatItReusedAndWritesTheSameRows) {
  temp_dir dir;
  const std::string grid = "q8_threshold=0.9,0.5 ewma_alpha=0.1,0.6 hysteresis=0.02,0.1";
  const auto reused = run_process(light_args("sweep", {"--grid", grid, "--jobs", "2", "--out", dir.file("r.csv")}));
  ASSERT_EQ(reused.exit_code, 0) << reused.err;
  const auto ran = run_process(
      light_args("sweep", {"--grid", grid, "--jobs", "2", "--no-reuse", "--out", dir.file("n.csv")}));
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(read_text(dir.file("r.csv")), read_text(dir.file("n.csv")));
  // The four configs of q8 0.9 are one run; those of q8 0.5 move their level: each its own.
  EXPECT_NE(reused.err.find("sweep: 3 of 8 configs reused an identical run: their EWMA never reached"),
            std::string::npos)
      << reused.err;
  EXPECT_EQ(ran.err.find("reused"), std::string::npos) << ran.err;
  const auto sidecar = json_file(dir.file("r.csv.provenance.json"));
  EXPECT_EQ(sidecar["reuse"]["reused"], 3);
  EXPECT_EQ(sidecar["reuse"]["configs"], 8);
  EXPECT_FALSE(json_file(dir.file("n.csv.provenance.json")).contains("reuse"));

  // Shards count their own rows; the merged sidecar keeps no count that would hold for neither.
  std::vector<std::string> merge{cli_path(), "sweep-merge"};
  for (int k = 0; k < 2; ++k) {
    const auto shard = dir.file("s" + std::to_string(k) + ".csv");
    const auto r = run_process(light_args("sweep", {"--grid", grid, "--shard", std::to_string(k) + "/2", "--out", shard}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    merge.push_back(shard);
  }
  merge.insert(merge.end(), {"--out", dir.file("m.csv")});
  const auto merged = run_process(merge);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(read_text(dir.file("m.csv")), read_text(dir.file("r.csv")));
  EXPECT_FALSE(json_file(dir.file("m.csv.provenance.json")).contains("reuse"));
}

std::size_t engine_runs_in(const std::string& out) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(out, m, std::regex("\\((\\d+) engine runs")) && m.size() == 2) << out;
  return m.size() == 2 ? std::stoul(m[1]) : 0;
}

TEST(CliReuse, CapacityTuneReusesProbesAndChoosesTheSame) {
  temp_dir dir;
  const std::vector<std::string> tune{"--gpu", "h100", "--slo", "ttft=1,tpot=0.05", "--space",
                                      "q8_threshold=0.9,0.95 ewma_alpha=0.2,0.8", "--objective", "max:capacity_rps",
                                      "--constraint", "attention_error_exposure<=0.5", "--search", "grid", "--jobs", "2"};
  auto args = light_args("tune", tune);
  args.insert(args.end(), {"--out", dir.file("r.json")});
  const auto reused = run_process(args);
  ASSERT_EQ(reused.exit_code, 0) << reused.err;
  args = light_args("tune", tune);
  args.insert(args.end(), {"--no-reuse", "--out", dir.file("n.json")});
  const auto ran = run_process(args);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(read_text(dir.file("r.json")), read_text(dir.file("n.json")));
  const auto with = json_file(dir.file("r.json.provenance.json"));
  const auto without = json_file(dir.file("n.json.provenance.json"));
  EXPECT_EQ(with["runs"], without["runs"]);
  EXPECT_EQ(with["chosen"], without["chosen"]);
  const std::size_t reused_runs = with["search"]["reused_runs"].get<std::size_t>();
  EXPECT_GT(reused_runs, 0u);
  EXPECT_FALSE(without["search"].contains("reused_runs"));
  EXPECT_EQ(with["search"]["engine_runs"].get<std::size_t>() + reused_runs,
            without["search"]["engine_runs"].get<std::size_t>());
  EXPECT_EQ(engine_runs_in(reused.out) + reused_runs, engine_runs_in(ran.out));
  EXPECT_NE(reused.out.find(std::to_string(reused_runs) + " more reused an identical run"), std::string::npos)
      << reused.out;
}

// Ranks reuse only their own runs, yet say and write what one process does: the counts come
// from the runs' figures, whatever ran where.
TEST(CliReuse, MpiRanksCountWhatOneProcessCounts) {
#if !KVSCOPE_TEST_MPI
  GTEST_SKIP() << "kvscope-cli was built without MPI (-DKVSCOPE_MPI=OFF): no mpirun test";
#endif
  if (run_process({"/bin/sh", "-c", "command -v mpirun"}).exit_code != 0) {
    GTEST_SKIP() << "mpirun is not installed (packaging/install-deps.sh installs openmpi-bin)";
  }
  temp_dir dir;
  const std::vector<std::string> sweep{"--grid", "q8_threshold=0.9,0.5 ewma_alpha=0.1,0.6 hysteresis=0.02,0.1",
                                       "--quiet"};
  auto one = light_args("sweep", sweep);
  one.insert(one.end(), {"--jobs", "1", "--out", dir.file("one.csv")});
  ASSERT_EQ(run_process(one).exit_code, 0);
  auto ranks = light_args("sweep", sweep);
  ranks.insert(ranks.end(), {"--out", dir.file("ranks.csv")});
  const auto r = run_mpi_ranks(ranks);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(read_text(dir.file("ranks.csv")), read_text(dir.file("one.csv")));
  EXPECT_EQ(read_text(dir.file("ranks.csv.provenance.json")), read_text(dir.file("one.csv.provenance.json")));

  const std::vector<std::string> tune{"--gpu", "h100", "--slo", "ttft=1,tpot=0.05", "--space",
                                      "q8_threshold=0.9,0.95 ewma_alpha=0.2,0.8", "--objective", "max:capacity_rps",
                                      "--search", "grid"};
  one = light_args("tune", tune);
  one.insert(one.end(), {"--jobs", "1", "--out", dir.file("one.json")});
  const auto tuned_one = run_process(one);
  ASSERT_EQ(tuned_one.exit_code, 0) << tuned_one.err;
  ranks = light_args("tune", tune);
  ranks.insert(ranks.end(), {"--out", dir.file("ranks.json")});
  const auto tuned_ranks = run_mpi_ranks(ranks);
  ASSERT_EQ(tuned_ranks.exit_code, 0) << tuned_ranks.out << tuned_ranks.err;
  EXPECT_EQ(read_text(dir.file("ranks.json.provenance.json")), read_text(dir.file("one.json.provenance.json")));
  EXPECT_GT(json_file(dir.file("one.json.provenance.json"))["search"]["reused_runs"].get<std::size_t>(), 0u);
}

}  // namespace
}  // namespace kvscope::test
