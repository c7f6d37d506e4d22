// What a new user trips over on a first run, each seen when one tried: a budget that cannot fit
// beside the weights, SLOs in milliseconds, a policy file or bench result given as the load, and
// rows skipped without a word.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

std::vector<std::string> simulate(std::vector<std::string> extra) {
  std::vector<std::string> argv{cli_path(), "simulate", "--quiet"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

void expect_refused(const process_result& r, const std::string& message) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
}

TEST(CliFirstRun, ABudgetThatCannotFitBesideTheWeightsIsRefused) {
  const auto big = run_process(simulate({"--load", small_load, "--model", "llama3-8b", "--gpu", "h100", "--budget",
                                         "100GiB"}));
  expect_refused(big, "kvscope-cli: --budget: a KV budget of 100 GiB does not fit beside llama3-8b on 1 x h100: "
                      "weights 14.96 GiB + KV budget 100 GiB per GPU > 79.65 GiB of GPU memory; budget auto would "
                      "give 55.44 GiB on 1 x h100");
  const auto heavy = run_process(simulate({"--load", small_load, "--model", "llama3-70b", "--gpu", "h100", "--budget",
                                           "4GiB"}));
  expect_refused(heavy, "weights 131.42 GiB + KV budget 4 GiB per GPU > 79.65 GiB of GPU memory");
  expect_refused(heavy, "on 2 x h100 (tensor parallel) it would give ");
  // Over two GPUs the weights split and 4 GiB fits.
  const auto split = run_process(simulate({"--load", small_load, "--model", "llama3-70b", "--gpu", "h100", "--tp", "2",
                                           "--budget", "4GiB"}));
  EXPECT_EQ(split.exit_code, 0) << split.err;
}

TEST(CliFirstRun, SlosThatLookLikeMillisecondsAreWarnedAboutAndRun) {
  const auto r = run_process(simulate({"--load", small_load, "--model", "tiny", "--budget", "4MiB", "--slo",
                                       "ttft=1000,tpot=50"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("kvscope-cli: warning: --slo: 'ttft=1000': 1000 s is more than 600 s, implausible for a time "
                       "to first token; limits are in seconds; if it is in milliseconds, write ttft=1\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("write tpot=0.05"), std::string::npos) << r.err;
  const auto seconds = run_process(simulate({"--load", small_load, "--model", "tiny", "--budget", "4MiB", "--slo",
                                             "ttft=1,tpot=0.05"}));
  EXPECT_EQ(seconds.exit_code, 0) << seconds.err;
  EXPECT_EQ(seconds.err.find("warning"), std::string::npos) << seconds.err;

  temp_dir dir;
  const auto tune = run_process({cli_path(), "tune", "--load", small_load, "--model", "tiny", "--budget", "4MiB",
                                 "--space", "q8_threshold=0.7,0.8", "--objective", "max:goodput_rps", "--constraint",
                                 "latency.ttft_s.p99<=1000", "--out", dir.file("tuned.json")});
  EXPECT_EQ(tune.exit_code, 0) << tune.err;
  EXPECT_NE(tune.err.find("kvscope-cli: warning: --constraint: 'latency.ttft_s.p99<=1000': 1000 s is more than 600 s"),
            std::string::npos)
      << tune.err;
}

TEST(CliFirstRun, FilesOfAnotherKindAreNamedWithHowToUseThem) {
  temp_dir dir;
  const auto policy = dir.file("policy.json");
  write_text(policy, "{\n  \"q8_threshold\": 0.7,\n  \"q4_threshold\": 0.9\n}\n");
  expect_refused(run_process(simulate({"--load", policy, "--model", "tiny", "--budget", "4MiB"})),
                 policy + ": a kvscope policy config, not a trace; give it as the policy (--policy " + policy + ")");
  const auto bench = data_path("vllm_bench_llama8b_h100_c1.json");
  expect_refused(run_process(simulate({"--load", bench, "--model", "tiny", "--budget", "4MiB"})),
                 bench + ": a `vllm bench serve` result, not a trace; load it as bench:" + bench);

  const auto tuned = dir.file("tuned.json");
  ASSERT_EQ(run_process({cli_path(), "tune", "--load", small_load, "--model", "tiny", "--budget", "4MiB", "--space",
                         "q8_threshold=0.7,0.8", "--objective", "max:goodput_rps", "--out", tuned})
                .exit_code,
            0);
  const auto sidecar = tuned + ".provenance.json";
  expect_refused(run_process(simulate({"--load", small_load, "--model", "tiny", "--budget", "4MiB", "--policy", sidecar})),
                 sidecar + ": the provenance of a tuned policy config, not a policy config; the tuned config is " + tuned);
  expect_refused(run_process(simulate({"--load", sidecar, "--model", "tiny", "--budget", "4MiB"})),
                 sidecar + ": the provenance of a tuned policy config, not a trace; its load was " +
                     std::string(small_load));
}

TEST(CliFirstRun, SkippedRowsAreReportedBySimulateAndTune) {
  temp_dir dir;
  const auto trace = dir.file("trace.csv");
  write_text(trace, "arrived_at,num_prefill_tokens,num_decode_tokens\n0,64,8\n0.5,sixty,8\n1,64,8\n");
  const auto r = run_process(simulate({"--load", trace, "--skip-bad-rows", "--model", "tiny", "--budget", "4MiB"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("kvscope-cli: 1 bad rows skipped:\n  " + trace + ":3: "), std::string::npos) << r.err;
  const auto tune = run_process({cli_path(), "tune", "--load", trace, "--skip-bad-rows", "--model", "tiny", "--budget",
                                 "4MiB", "--space", "q8_threshold=0.7,0.8", "--objective", "max:goodput_rps", "--out",
                                 dir.file("tuned.json")});
  EXPECT_EQ(tune.exit_code, 0) << tune.err;
  EXPECT_NE(tune.err.find("1 bad rows skipped:\n  " + trace + ":3: "), std::string::npos) << tune.err;
}

}  // namespace
}  // namespace kvscope::test
