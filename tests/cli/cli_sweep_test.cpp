// `kvscope-cli sweep`, `sweep-merge`, `pareto`, `tune` (and its capacity search) end to end.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

// The "done when" sweep: a generated load, the tiny model, 16 MiB.
const std::string sweep_load = "gen:rate=20,prompt=lognormal:500:0.6,output=uniform:120:0.5,count=300,seed=11";
const std::string grid = "q8_threshold=0.6,0.8 ewma_alpha=0.1,0.5 hysteresis=0.02,0.08";

std::vector<std::string> sweep_args(const std::string& out, std::vector<std::string> more = {}) {
  std::vector<std::string> a{cli_path(), "sweep", "--load", sweep_load, "--model", "tiny", "--budget", "16MiB",
                             "--grid", grid, "--out", out};
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(CliSweep, SameBytesAtOneAndTwoJobsAndFromMergedShards) {
  temp_dir dir;
  const auto one = dir.file("j1.csv"), two = dir.file("j2.csv");
  auto r = run_process(sweep_args(one, {"--jobs", "1"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_process(sweep_args(two, {"--jobs", "2"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto bytes = read_text(one);
  EXPECT_EQ(bytes, read_text(two));
  const auto lines = lines_of(bytes);
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_TRUE(lines[0].starts_with("index,q8_threshold,ewma_alpha,hysteresis,"));
  for (const char* column : {"goodput_rps", "attention_error_exposure", "transitions_per_hour", "output_tokens_per_s",
                             "latency.ttft_s.p99", "latency.tpot_s.p50", "preemptions"}) {
    EXPECT_NE(lines[0].find(std::string(",") + column), std::string::npos) << column;
  }
  EXPECT_EQ(lines[0].find("wall_seconds"), std::string::npos);
  EXPECT_TRUE(lines[1].starts_with("0,0.6,0.1,0.02,"));
  EXPECT_TRUE(lines[8].starts_with("7,0.8,0.5,0.08,"));

  std::vector<std::string> merge{cli_path(), "sweep-merge"};
  for (int k = 0; k < 3; ++k) {
    const auto shard = dir.file("s" + std::to_string(k) + ".csv");
    r = run_process(sweep_args(shard, {"--shard", std::to_string(k) + "/3"}));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    merge.push_back(shard);
  }
  merge.insert(merge.end(), {"--out", dir.file("merged.csv")});
  r = run_process(merge);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(dir.file("merged.csv")), bytes);
  r = run_process({cli_path(), "sweep-merge", dir.file("s0.csv"), dir.file("s2.csv"), "--out", dir.file("m.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("config 1 is in none of the files"), std::string::npos) << r.err;
}

// mpirun -n 3: rank 0 hands out configs, ranks 1 and 2 run them; the bytes of one process.
TEST(CliSweep, MpiRanksWriteTheOneProcessBytes) {
#if !KVSCOPE_TEST_MPI
  GTEST_SKIP() << "kvscope-cli was built without MPI (-DKVSCOPE_MPI=OFF): no mpirun test";
#endif
  const auto which = run_process({"/bin/sh", "-c", "command -v mpirun"});
  if (which.exit_code != 0) GTEST_SKIP() << "mpirun is not installed (packaging/install-deps.sh installs openmpi-bin)";
  temp_dir dir;
  auto r = run_process(sweep_args(dir.file("one.csv"), {"--jobs", "1"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_mpi_ranks(sweep_args(dir.file("ranks.csv")));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("on 2 worker ranks"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(dir.file("ranks.csv")), read_text(dir.file("one.csv")));
}

TEST(CliSweep, BadAxesAreRefusedBeforeAnyRun) {
  temp_dir dir;
  const auto out = dir.file("x.csv");
  auto r = run_process({cli_path(), "sweep", "--load", sweep_load, "--model", "tiny", "--budget", "16MiB", "--grid",
                        "q8_threshold=0.6 foo=1", "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown option 'foo'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;  // nothing is close to foo
  r = run_process({cli_path(), "sweep", "--load", sweep_load, "--model", "tiny", "--budget", "16MiB", "--grid",
                   "q8_treshold=0.6", "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("(did you mean 'q8_threshold'?)"), std::string::npos) << r.err;
  // A generator spec is read before any run: a mistyped key is bad input, not a failed run.
  r = run_process({cli_path(), "sweep", "--load", sweep_load + ",sed=3", "--model", "tiny", "--budget", "16MiB", "--grid",
                   "q8_threshold=0.6", "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown key 'sed'"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("a run failed"), std::string::npos) << r.err;
  r = run_process({cli_path(), "sweep", "--load", sweep_load, "--model", "tiny", "--budget", "16MiB", "--grid",
                   "q8_threshold=0.6,1.5", "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("config 1 (q8_threshold=1.5)"), std::string::npos) << r.err;
  r = run_process({cli_path(), "sweep", "--load", sweep_load, "--model", "tiny", "--budget", "16MiB", "--grid",
                   "q8_threshold=0.5:0.9:0", "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("axis 'q8_threshold'"), std::string::npos) << r.err;
  // One option under two spellings: one would override the other while the CSV showed both.
  r = run_process({cli_path(), "sweep", "--load", sweep_load, "--model", "tiny", "--budget", "16MiB", "--grid",
                   "q8_threshold=0.6,0.8 q8-threshold=0.7", "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'q8_threshold' (--grid) and 'q8-threshold' name the same option --q8-threshold"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  // A combination the policy refuses: exit 2, or a row with empty metrics with --skip-invalid.
  r = run_process({cli_path(), "sweep", "--load", sweep_load, "--model", "tiny", "--budget", "16MiB", "--grid",
                   "q8_threshold=0.5,0.97", "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  r = run_process({cli_path(), "sweep", "--load", sweep_load, "--model", "tiny", "--budget", "16MiB", "--grid",
                   "q8_threshold=0.5,0.97", "--out", out, "--skip-invalid"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(read_text(out));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(lines[2].starts_with("1,0.97,,,,")) << lines[2];
  // A configs file names its line.
  write_text(dir.file("configs.txt"), "q8_threshold=0.6\nq8_threshold=0.6 ewma-alpha=2\n");
  r = run_process({cli_path(), "sweep", "--load", sweep_load, "--model", "tiny", "--configs", dir.file("configs.txt"),
                   "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("configs.txt:2: config 1"), std::string::npos) << r.err;
}

TEST(CliSweep, ResumeRunsOnlyWhatIsMissing) {
  temp_dir dir;
  const auto full = dir.file("full.csv"), part = dir.file("part.csv");
  ASSERT_EQ(run_process(sweep_args(full)).exit_code, 0);
  const auto lines = lines_of(read_text(full));
  // Rows 0, 1, 2 and 5 kept, as an interrupted run with two jobs may leave them.
  write_text(part, lines[0] + "\n" + lines[1] + "\n" + lines[2] + "\n" + lines[3] + "\n" + lines[6] + "\n");
  write_text(part + ".provenance.json", read_text(full + ".provenance.json"));
  auto r = run_process(sweep_args(part, {"--resume"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("4 configs run"), std::string::npos) << r.err;
  EXPECT_EQ(read_text(part), read_text(full));
  // Another sweep's file is refused, not mixed in.
  r = run_process({cli_path(), "sweep", "--load", sweep_load, "--model", "tiny", "--budget", "16MiB", "--grid",
                   "q8_threshold=0.6,0.9 ewma_alpha=0.1,0.5 hysteresis=0.02,0.08", "--out", part, "--resume"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not the same sweep"), std::string::npos) << r.err;
}

// What a sweep file was made from goes beside it; rows of another load, base or kvscope are
// never resumed or merged into it.
TEST(CliSweep, ResumeAndMergeRefuseAnotherLoadOrBase) {
  temp_dir dir;
  const auto out = dir.file("s.csv");
  const auto small = [&](const std::string& file, std::vector<std::string> more) {
    std::vector<std::string> a{cli_path(), "sweep", "--load", sweep_load, "--model", "tiny", "--grid",
                               "q8_threshold=0.6,0.8", "--out", file};
    a.insert(a.end(), more.begin(), more.end());
    return run_process(a);
  };
  auto r = small(out, {"--budget", "16MiB"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto bytes = read_text(out);
  const auto sidecar = nlohmann::json::parse(read_text(out + ".provenance.json"));
  EXPECT_EQ(sidecar["load"]["spec"], sweep_load);
  EXPECT_TRUE(sidecar["load"]["checksum"].get<std::string>().starts_with("sha256:"));
  EXPECT_EQ(sidecar["base"]["budget"], "16MiB");
  EXPECT_FALSE(sidecar["base"].contains("q8-threshold"));  // swept: its base value never ran
  EXPECT_EQ(sidecar["options_typed"], nlohmann::json::array({"--model tiny", "--budget 16MiB"}));
  // The same base typed another way resumes (nothing left to run).
  r = small(out, {"--budget", "16777216", "--resume"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = small(out, {"--budget", "1GiB", "--resume"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("s.csv: --resume: made from another run: budget: the file made with 16MiB, this sweep with "
                       "1GiB"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_text(out), bytes);
  r = run_process({cli_path(), "sweep", "--load", sweep_load + "0", "--model", "tiny", "--budget", "16MiB", "--grid",
                   "q8_threshold=0.6,0.8", "--out", out, "--resume"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("load: the file made with " + sweep_load + " (sha256:"), std::string::npos) << r.err;
  // A file of a kvscope before sidecars: refused, with what to do.
  std::filesystem::remove(out + ".provenance.json");
  r = small(out, {"--budget", "16MiB", "--resume"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("run without --resume to start again"), std::string::npos) << r.err;
  r = small(out, {"--budget", "16MiB"});  // afresh, without --resume: rows and sidecar anew
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(out), bytes);
  // A metric cell changed by hand: refused at its line and column.
  const auto lines = lines_of(bytes);
  write_text(out, lines[0] + "\n" + lines[1] + "\n" + "1,0.8,x" + lines[2].substr(lines[2].find(',', 6)) + "\n");
  r = small(out, {"--budget", "16MiB", "--resume"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("s.csv:3:7: --resume: column 'budget_bytes': 'x' is not a number"), std::string::npos) << r.err;
  // Shards of different base options or loads are not merged.
  ASSERT_EQ(small(dir.file("a.csv"), {"--budget", "16MiB", "--shard", "0/2"}).exit_code, 0);
  ASSERT_EQ(small(dir.file("b.csv"), {"--budget", "1GiB", "--shard", "1/2"}).exit_code, 0);
  r = run_process({cli_path(), "sweep-merge", dir.file("a.csv"), dir.file("b.csv"), "--out", dir.file("m.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("b.csv: not the same sweep as " + dir.file("a.csv") + ": budget: " + dir.file("a.csv") +
                       " made with 16MiB, " + dir.file("b.csv") + " with 1GiB"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("m.csv")));
  ASSERT_EQ(small(dir.file("b.csv"), {"--budget", "16MiB", "--shard", "1/2"}).exit_code, 0);
  r = run_process({cli_path(), "sweep-merge", dir.file("a.csv"), dir.file("b.csv"), "--out", dir.file("m.csv")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(dir.file("m.csv")), bytes);
  EXPECT_TRUE(std::filesystem::exists(dir.file("m.csv") + ".provenance.json"));
}

// Ctrl-C: the run stops, the file holds the rows done so far (a valid sweep CSV), and --resume
// completes it to the bytes of an uninterrupted run. The interrupt is sent once the first config
// has finished (--verbose says so), not after a fixed sleep: a fast machine finished the whole
// sweep inside a 0.6 s sleep.
TEST(CliSweep, InterruptLeavesAValidPartialFile) {
  temp_dir dir;
  const auto out = dir.file("s.csv"), log = dir.file("err.log");
  const std::string long_load = "gen:rate=20,prompt=lognormal:500:0.6,output=uniform:120:0.5,count=3000,seed=3";
  const std::string long_grid = "q8_threshold=0.5:0.9:0.1 ewma_alpha=0.1:0.5:0.1 hysteresis=0.02,0.04";
  std::string command;
  for (const auto& a : {cli_path(), std::string("sweep"), std::string("--load"), long_load, std::string("--model"),
                        std::string("tiny"), std::string("--budget"), std::string("16MiB"), std::string("--grid"),
                        long_grid, std::string("--jobs"), std::string("1"), std::string("--verbose"),
                        std::string("--out"), out}) {
    command += "'" + a + "' ";
  }
  const auto r = run_process(
      {"/bin/sh", "-c",
       command + "2>'" + log + "' & pid=$!; i=0; " +
           "while ! grep -q 'sweep: config' '" + log + "' && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; " +
           "kill -INT $pid; wait $pid; echo rc=$?; cat '" + log + "' >&2"});
  ASSERT_NE(r.out.find("rc=1"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.err.find("interrupted:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--resume"), std::string::npos) << r.err;
  const auto partial = lines_of(read_text(out));
  ASSERT_GE(partial.size(), 1u);
  EXPECT_TRUE(partial[0].starts_with("index,q8_threshold,ewma_alpha,"));
  EXPECT_LT(partial.size(), 51u) << "the sweep finished before the interrupt: make it longer";
  for (std::size_t i = 1; i < partial.size(); ++i) EXPECT_TRUE(partial[i].starts_with(std::to_string(i - 1) + ","));

  auto resumed = run_process({cli_path(), "sweep", "--load", long_load, "--model", "tiny", "--budget", "16MiB",
                              "--grid", long_grid, "--out", out, "--resume"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto whole = dir.file("whole.csv");
  ASSERT_EQ(run_process({cli_path(), "sweep", "--load", long_load, "--model", "tiny", "--budget", "16MiB", "--grid",
                         long_grid, "--out", whole})
                .exit_code,
            0);
  EXPECT_EQ(read_text(out), read_text(whole));
}

TEST(CliPareto, PrintsTheFrontAndDrawsIt) {
  temp_dir dir;
  const auto csv = dir.file("s.csv");
  ASSERT_EQ(run_process({cli_path(), "sweep", "--load", sweep_load, "--model", "tiny", "--budget", "16MiB", "--slo",
                         "ttft=1,tpot=0.05", "--grid", "q4_threshold=0.95,0.99,1 q8_threshold=0.3:0.9:0.2", "--out", csv})
                .exit_code,
            0);
  const auto r = run_process({cli_path(), "pareto", csv, "--objectives", "max:goodput_rps,min:attention_error_exposure",
                              "--json", "--plot", dir.file("front.svg")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto front = nlohmann::json::parse(r.out);
  ASSERT_GE(front.size(), 2u);  // a trade-off: compression buys goodput at the price of error
  for (std::size_t i = 1; i < front.size(); ++i) {
    // Best first on goodput, and along the front the error only falls as goodput falls.
    EXPECT_GE(front[i - 1]["goodput_rps"].get<double>(), front[i]["goodput_rps"].get<double>());
    EXPECT_GT(front[i - 1]["attention_error_exposure"].get<double>(), front[i]["attention_error_exposure"].get<double>());
  }
  EXPECT_TRUE(front[0]["index"].is_number_unsigned());
  const auto svg = read_text(dir.file("front.svg"));
  EXPECT_NE(svg.find("goodput_rps (requests/s), higher is better"), std::string::npos);
  const auto table = run_process({cli_path(), "pareto", csv, "--objectives", "goodput_rps,attention_error_exposure"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(table.out.starts_with("index  q4_threshold  q8_threshold  goodput_rps")) << table.out;
  EXPECT_EQ(run_process({cli_path(), "pareto", csv, "--objectives", "max:nope"}).exit_code, 2);
  // vLLM's name of a column, in its unit, points at kvscope's.
  auto vllm_name = run_process({cli_path(), "pareto", csv, "--objectives", "goodput_rps,min:p99_ttft_ms"});
  EXPECT_EQ(vllm_name.exit_code, 2);
  EXPECT_NE(vllm_name.err.find("'p99_ttft_ms' is not a column of " + csv + " (did you mean 'latency.ttft_s.p99'?)"),
            std::string::npos)
      << vllm_name.err;
  vllm_name = run_process({cli_path(), "pareto", csv, "--objectives", "goodput_rps,p99_ttft_ms"});
  EXPECT_EQ(vllm_name.exit_code, 2);
  EXPECT_NE(vllm_name.err.find("'p99_ttft_ms': no such metric (did you mean 'latency.ttft_s.p99'?)"), std::string::npos)
      << vllm_name.err;
  EXPECT_EQ(run_process({cli_path(), "pareto", csv, "--objectives", "steps"}).exit_code, 2);
}

// tune writes a config `validate` accepts, a provenance beside it, and its choice meets the
// constraint and is at least as good as every grid point that does (the sweep of the same grid).
TEST(CliTune, WritesAValidConfigThatBeatsEveryFeasibleGridPoint) {
  temp_dir dir;
  const std::string space = "q4_threshold=0.95:1:0.01 q8_threshold=0.5:0.9:0.1 hysteresis=0.02,0.05,0.1";
  const std::vector<std::string> base{"--load", sweep_load, "--model", "tiny", "--budget", "16MiB", "--slo", "ttft=1,tpot=0.05"};
  std::vector<std::string> tune{cli_path(), "tune"};
  tune.insert(tune.end(), base.begin(), base.end());
  tune.insert(tune.end(), {"--space", space, "--objective", "max:goodput_rps", "--constraint",
                           "attention_error_exposure<=0.05", "--out", dir.file("tuned.json")});
  auto r = run_process(tune);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("search      descent: "), std::string::npos) << r.out;
  EXPECT_EQ(run_process({cli_path(), "validate", dir.file("tuned.json")}).exit_code, 0);
  const auto config = nlohmann::json::parse(read_text(dir.file("tuned.json")));
  EXPECT_FALSE(config.contains("provenance"));  // the reference's exact format
  const auto provenance = nlohmann::json::parse(read_text(dir.file("tuned.json.provenance.json")));
  for (const char* key : {"kvscope_version", "load", "model", "gpu", "budget_bytes", "objective", "constraints",
                          "chosen", "search", "runs"}) {
    EXPECT_TRUE(provenance.contains(key)) << key;
  }
  EXPECT_TRUE(provenance["load"]["checksum"].get<std::string>().starts_with("sha256:"));
  const double tuned = provenance["chosen"]["score"]["goodput_rps"].get<double>();
  EXPECT_LE(provenance["chosen"]["score"]["attention_error_exposure"].get<double>(), 0.05);
  const std::size_t runs = provenance["search"]["configs_run"].get<std::size_t>();
  EXPECT_LT(runs, 90u);
  EXPECT_EQ(provenance["runs"].size(), runs);

  std::vector<std::string> sweep{cli_path(), "sweep"};
  sweep.insert(sweep.end(), base.begin(), base.end());
  sweep.insert(sweep.end(), {"--grid", space, "--out", dir.file("grid.csv")});
  ASSERT_EQ(run_process(sweep).exit_code, 0);
  const auto lines = lines_of(read_text(dir.file("grid.csv")));
  ASSERT_EQ(lines.size(), 91u);
  const auto header = lines[0];
  const auto column = [&](const std::string& name) {
    std::size_t c = 0;
    std::istringstream in(header);
    for (std::string cell; std::getline(in, cell, ','); ++c) {
      if (cell == name) return c;
    }
    return std::string::npos;
  };
  const auto goodput = column("goodput_rps"), error = column("attention_error_exposure");
  std::size_t feasible = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> cells;
    std::istringstream in(lines[i]);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    if (std::stod(cells[error]) > 0.05) continue;
    ++feasible;
    EXPECT_GE(tuned, std::stod(cells[goodput])) << "grid row " << lines[i].substr(0, 30);
  }
  EXPECT_GT(feasible, 0u);

  // TOML too; and no config meeting the constraints is exit 1 with nothing written.
  tune.back() = dir.file("tuned.toml");
  ASSERT_EQ(run_process(tune).exit_code, 0);
  EXPECT_EQ(run_process({cli_path(), "validate", dir.file("tuned.toml")}).exit_code, 0);
  tune[tune.size() - 3] = "attention_error_exposure<=0.0001";
  tune.back() = dir.file("none.json");
  r = run_process(tune);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.json")));

  // A metric named as vLLM names it, or mistyped, is refused before any run with kvscope's name.
  tune[tune.size() - 3] = "p99_tpot_ms<=50";
  r = run_process(tune);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("(did you mean 'latency.tpot_s.p99'?)"), std::string::npos) << r.err;
  tune[tune.size() - 5] = "max:goodput";
  r = run_process(tune);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("(did you mean 'goodput_rps'?)"), std::string::npos) << r.err;
}

// With --budget auto the provenance names the bytes the runs had (what auto chose on the GPU), not 0.
TEST(CliTune, ProvenanceOfAnAutoBudgetNamesWhatItChose) {
  temp_dir dir;
  const auto r = run_process({cli_path(), "tune", "--load", "gen:rate=2,prompt=fixed:500,output=fixed:20,count=20,seed=3",
                              "--model", "llama3-8b", "--gpu", "h100", "--budget", "auto", "--space",
                              "q8_threshold=0.7,0.8", "--objective", "max:goodput_rps", "--out", dir.file("tuned.json")});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto provenance = nlohmann::json::parse(read_text(dir.file("tuned.json.provenance.json")));
  EXPECT_GT(provenance["budget_bytes"].get<std::uint64_t>(), 40ull << 30) << provenance.dump();
  EXPECT_TRUE(provenance["budget_auto"].get<bool>());
}

// The constant-rate load of tests/sweep/capacity_test.cpp: capacity 1/S = 9.549 requests/s.
TEST(CliTune, CapacityObjectiveFindsAKnownCapacityWithinTwoPercent) {
  temp_dir dir;
  std::string jsonl = "{\"format\":\"kvscope-load\",\"version\":1,\"source\":\"constant rate\"}\n";
  for (int i = 0; i < 200; ++i) {
    jsonl += "{\"id\":" + std::to_string(i) + ",\"arrival_s\":" + std::to_string(i * 0.5) +
             ",\"prompt_tokens\":100,\"output_tokens\":10}\n";
  }
  write_text(dir.file("constant.jsonl"), jsonl);
  const auto r = run_process({cli_path(), "tune", "--load", dir.file("constant.jsonl"), "--model", "tiny", "--budget",
                              "16MiB", "--max-num-seqs", "1", "--slo", "e2e=0.15", "--objective", "max:capacity_rps"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto at = r.out.find("capacity    ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const double capacity = std::stod(r.out.substr(at + 12));
  const double truth = 1 / ((10e-3 + 100 * 40e-6) + 9 * (10e-3 + 80e-6));
  EXPECT_NEAR(capacity / truth, 1.0, 0.02) << r.out;
  // Without an SLO there is no capacity to find.
  EXPECT_EQ(run_process({cli_path(), "tune", "--load", dir.file("constant.jsonl"), "--model", "tiny", "--objective",
                         "max:capacity_rps"})
                .exit_code,
            2);
}

TEST(CliBench, SweepReportsConfigsPerSecondAndIdenticalCsvs) {
  const auto r = run_process({cli_path(), "bench", "sweep", "--repeats", "1", "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("configs 8  1 job "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CSV identical"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kvscope::test
