// --arrivals as a user meets it: simulate says how the arrivals were made and gives the same
// bytes every time, a session replays them, bad values exit 2 naming the flag, and tune's
// capacity search says whether it kept the trace's bursts or resampled them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

const std::vector<std::string> arrivals_test_engine{"--model", "tiny", "--budget", "16MiB"};

process_result simulate_arrivals(std::vector<std::string> extra) {
  std::vector<std::string> argv{cli_path(), "simulate"};
  argv.insert(argv.end(), arrivals_test_engine.begin(), arrivals_test_engine.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run_process(argv);
}

// The capacity `tune` printed ("capacity    12.3 requests/s ..."), or -1.
double printed_capacity(const std::string& out) {
  const auto at = out.find("capacity    ");
  if (at == std::string::npos) return -1;
  return std::stod(out.substr(at + 12));
}

// What a run wrote that must be the same bytes every time: its per-request and per-step CSVs
// and its summary without the wall-clock figures.
std::string arrivals_run_bytes(const temp_dir& dir, const std::string& name) {
  auto j = nlohmann::json::parse(read_text(dir.file(name + ".json")));
  j.erase("wall_seconds");
  j.erase("decode_token_steps_per_s");
  return read_text(dir.file(name + ".requests.csv")) + read_text(dir.file(name + ".metrics.csv")) + j.dump();
}

std::vector<std::string> arrivals_outputs(const temp_dir& dir, const std::string& name) {
  return {"--requests", dir.file(name + ".requests.csv"), "--metrics", dir.file(name + ".metrics.csv"),
          "--summary-json", dir.file(name + ".json")};
}

TEST(CliArrivals, SimulateSaysSoAndGivesTheSameBytesEveryTimeAtAnyThreadCount) {
  const std::string trace = data_path("azure_conv_500.csv");
  temp_dir dir;
  const auto simulate_into = [&](const std::string& name, std::vector<std::string> args) {
    args.insert(args.begin(), {"--load", trace});
    const auto outputs = arrivals_outputs(dir, name);
    args.insert(args.end(), outputs.begin(), outputs.end());
    return simulate_arrivals(args);
  };
  const auto own = simulate_into("own", {});
  const auto a = simulate_into("a", {"--arrivals", "gamma:2", "--threads", "1"});
  const auto b = simulate_into("b", {"--arrivals", "gamma:2", "--threads", "2"});
  const auto c = simulate_into("c", {"--arrivals", "gamma:2", "--threads", "1"});
  const auto reseeded = simulate_into("d", {"--arrivals", "gamma:2", "--seed", "9"});
  for (const auto* r : {&own, &a, &b, &c, &reseeded}) ASSERT_EQ(r->exit_code, 0) << r->err;
  EXPECT_NE(a.out.find(trace + ", arrivals resampled as Gamma (CV 2) at the same mean rate"), std::string::npos)
      << a.out;
  EXPECT_EQ(own.out.find("resampled"), std::string::npos) << own.out;
  EXPECT_NE(arrivals_run_bytes(dir, "a"), arrivals_run_bytes(dir, "own"));
  EXPECT_EQ(arrivals_run_bytes(dir, "a"), arrivals_run_bytes(dir, "b"));
  EXPECT_EQ(arrivals_run_bytes(dir, "a"), arrivals_run_bytes(dir, "c"));
  EXPECT_NE(arrivals_run_bytes(dir, "a"), arrivals_run_bytes(dir, "d"));  // another seed, other arrivals
  const auto faster = simulate_arrivals({"--load", trace, "--arrivals", "poisson", "--rate-scale", "2"});
  ASSERT_EQ(faster.exit_code, 0) << faster.err;
  EXPECT_NE(faster.out.find(" at 2x its arrival rate, arrivals resampled as Poisson at that mean rate"),
            std::string::npos)
      << faster.out;
}

TEST(CliArrivals, ASessionReplaysTheResampledRunToTheSameBytes) {
  temp_dir dir;
  std::vector<std::string> args{"--load", small_load, "--arrivals", "gamma:0.5", "--session", dir.file("s.json")};
  const auto outputs = arrivals_outputs(dir, "run");
  args.insert(args.end(), outputs.begin(), outputs.end());
  const auto run = simulate_arrivals(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(read_text(dir.file("s.json")).find("\"arrivals\": \"gamma:0.5\""), std::string::npos)
      << read_text(dir.file("s.json"));
  std::vector<std::string> replay_args{cli_path(), "replay", "--session", dir.file("s.json")};
  const auto replay_outputs = arrivals_outputs(dir, "replay");
  replay_args.insert(replay_args.end(), replay_outputs.begin(), replay_outputs.end());
  const auto replay = run_process(replay_args);
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_NE(replay.out.find("arrivals resampled as Gamma (CV 0.5)"), std::string::npos) << replay.out;
  EXPECT_EQ(arrivals_run_bytes(dir, "replay"), arrivals_run_bytes(dir, "run"));
}

TEST(CliArrivals, BadValuesExitTwoNamingTheFlagBeforeAnyRun) {
  for (const char* bad : {"gamma:0", "gamma", "gamma:x", "bursty", "gamma:50"}) {
    SCOPED_TRACE(bad);
    const auto r = simulate_arrivals({"--load", small_load, "--arrivals", bad});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--arrivals: expected keep, poisson or gamma:CV"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  // tune and sweep take it too, as a fixed option or as an axis.
  const auto tune = run_process({cli_path(), "tune", "--load", small_load, "--model", "tiny", "--slo", "e2e=1",
                                 "--objective", "max:capacity_rps", "--arrivals", "gamma:-2"});
  EXPECT_EQ(tune.exit_code, 2);
  EXPECT_NE(tune.err.find("--arrivals: expected keep"), std::string::npos) << tune.err;
  temp_dir dir;
  const auto sweep = run_process({cli_path(), "sweep", "--load", small_load, "--model", "tiny", "--grid",
                                  "arrivals=poisson,sometimes", "--out", dir.file("s.csv")});
  EXPECT_EQ(sweep.exit_code, 2);
  EXPECT_NE(sweep.err.find("--arrivals: expected keep"), std::string::npos) << sweep.err;
  // A closed loop has no arrival times to resample.
  const auto closed = simulate_arrivals(
      {"--load", "gen:concurrency=2,prompt=fixed:10,output=fixed:2,count=10,seed=1", "--arrivals", "poisson"});
  EXPECT_EQ(closed.exit_code, 2);
  EXPECT_NE(closed.err.find("closed loop of 2 clients"), std::string::npos) << closed.err;
}

TEST(CliArrivals, SweepRunsArrivalsAsAnAxis) {
  temp_dir dir;
  const auto r = run_process({cli_path(), "sweep", "--load", small_load, "--model", "tiny", "--budget", "16MiB",
                              "--grid", "arrivals=keep,poisson,gamma:3", "--out", dir.file("s.csv")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = read_text(dir.file("s.csv"));
  for (const char* value : {",keep,", ",poisson,", ",gamma:3,"}) EXPECT_NE(csv.find(value), std::string::npos) << csv;
}

// On the bursty sample trace: capacity with Poisson arrivals runs and says how the load was scaled.
TEST(CliArrivals, TuneCapacitySaysHowTheLoadWasScaled) {
  const std::vector<std::string> argv{cli_path(), "tune", "--load", data_path("azure_conv_500.csv"), "--model", "tiny",
                                      "--budget", "16MiB", "--slo", "ttft=2", "--objective", "max:capacity_rps"};
  const auto kept = run_process(argv);
  auto resampled_argv = argv;
  resampled_argv.insert(resampled_argv.end(), {"--arrivals", "poisson"});
  const auto resampled = run_process(resampled_argv);
  ASSERT_EQ(kept.exit_code, 0) << kept.out << kept.err;
  ASSERT_EQ(resampled.exit_code, 0) << resampled.out << resampled.err;
  EXPECT_NE(kept.out.find("its arrival times scaled (its bursts kept)"), std::string::npos) << kept.out;
  EXPECT_NE(resampled.out.find("its arrivals resampled as Poisson at its mean rate, then scaled (the trace's own "
                               "bursts not kept)"),
            std::string::npos)
      << resampled.out;
  EXPECT_GT(printed_capacity(resampled.out), 0) << resampled.out;
  EXPECT_NE(printed_capacity(resampled.out), printed_capacity(kept.out));
  // The resampled requests fill the trace's own span: the rate scaled from is the same.
  const auto load_rate = [](const std::string& out) {
    const auto at = out.find("the load itself arrives at ");
    return at == std::string::npos ? std::string("none") : out.substr(at, out.find(" requests/s", at) - at);
  };
  EXPECT_EQ(load_rate(resampled.out), load_rate(kept.out));
  EXPECT_NE(load_rate(kept.out), "none") << kept.out;
}

// A nearly constant-rate load (gaps of CV 0.03), one sequence at a time: its own arrivals hardly
// queue, so its capacity is near the server's (1/S = 9.5 requests/s); Poisson arrivals at the
// same rate queue, and the capacity falls.
TEST(CliArrivals, PoissonArrivalsLowerTheCapacityOfASmoothLoad) {
  const std::vector<std::string> argv{cli_path(), "tune", "--load",
                                      "gen:rate=2,burstiness=1000,prompt=fixed:100,output=fixed:10,count=200,seed=1",
                                      "--model", "tiny", "--budget", "16MiB", "--max-num-seqs", "1", "--slo",
                                      "e2e=0.15", "--objective", "max:capacity_rps"};
  const auto kept = run_process(argv);
  auto poisson_argv = argv;
  poisson_argv.insert(poisson_argv.end(), {"--arrivals", "poisson"});
  const auto poisson = run_process(poisson_argv);
  ASSERT_EQ(kept.exit_code, 0) << kept.out << kept.err;
  ASSERT_EQ(poisson.exit_code, 0) << poisson.out << poisson.err;
  EXPECT_LT(printed_capacity(poisson.out), 0.8 * printed_capacity(kept.out)) << kept.out << poisson.out;
  EXPECT_GT(printed_capacity(poisson.out), 0) << poisson.out;
}

}  // namespace
}  // namespace kvscope::test
