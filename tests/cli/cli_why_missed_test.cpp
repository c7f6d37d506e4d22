// The why-did-my-requests-miss answer as a user reads it: the misses by cause, the lever with a
// space to try, the load scaled as said, and a capacity that cannot be had said so.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"

namespace kvscope::test {
namespace {

const std::vector<std::string> llama_on_h100{"--model", "llama3-8b", "--gpu", "h100"};

process_result simulate_on_h100(std::vector<std::string> extra) {
  std::vector<std::string> argv{cli_path(), "simulate"};
  argv.insert(argv.end(), llama_on_h100.begin(), llama_on_h100.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  return run_process(argv);
}

TEST(CliWhyMissed, TheSummarySaysWhyAndWhatToTry) {
  const auto r = simulate_on_h100({"--load", "gen:rate=8,prompt=lognormal:1000:0.5,output=uniform:300:0.5,duration=60,seed=2",
                           "--budget", "1GiB", "--slo", "ttft=1,tpot=0.05", "--summary-json", "-", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"main_cause\": \"kv_memory\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"tune_space\": \"budget=1GiB,1.5GiB,2GiB,3GiB"), std::string::npos) << r.out;
  const auto text = simulate_on_h100({"--load", "gen:rate=8,prompt=lognormal:1000:0.5,output=uniform:300:0.5,duration=60,seed=2",
                              "--budget", "1GiB", "--slo", "ttft=1,tpot=0.05"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("queued for KV memory"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("try           tune --space 'budget="), std::string::npos) << text.out;
}

TEST(CliWhyMissed, RateScaleRunsTheLoadFasterAndSaysSo) {
  const std::string load = data_path("azure_conv_500.csv");
  const auto once = simulate_on_h100({"--load", load, "--budget", "4GiB"});
  const auto twice = simulate_on_h100({"--load", load, "--budget", "4GiB", "--rate-scale", "2"});
  ASSERT_EQ(once.exit_code, 0) << once.err;
  ASSERT_EQ(twice.exit_code, 0) << twice.err;
  EXPECT_EQ(once.out.find("its arrival rate"), std::string::npos);
  EXPECT_NE(twice.out.find("at 2x its arrival rate (arrival times scaled, bursts kept)"), std::string::npos) << twice.out;
  EXPECT_NE(once.out, twice.out);
  const auto bad = simulate_on_h100({"--load", load, "--budget", "4GiB", "--rate-scale", "0"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--rate-scale: expected a positive number"), std::string::npos) << bad.err;
}

TEST(CliWhyMissed, ACapacityThatCannotBeHadIsSaidSoNotZero) {
  // 7,000-token prompts cannot reach their first token within 0.2 s on an H100 even alone.
  std::vector<std::string> argv{cli_path(), "tune", "--load", "gen:rate=0.5,prompt=fixed:7000,output=fixed:20,count=20,seed=3",
                                "--budget", "8GiB", "--slo", "ttft=0.2", "--objective", "max:capacity_rps",
                                "--space", "max-num-seqs=64,128"};
  argv.insert(argv.end(), llama_on_h100.begin(), llama_on_h100.end());
  const auto r = run_process(argv);
  EXPECT_NE(r.out.find("capacity    none: SLO attainment >= 0.99 (ttft=0.2) cannot be had at any rate: 100 % of the "
                       "requests miss even alone on an idle server"),
            std::string::npos)
      << r.out << r.err;
  EXPECT_EQ(r.out.find("capacity    0 requests/s"), std::string::npos) << r.out;
}

// The Mooncake sample on one H100: the load needs more GPU time than it lasts. The summary says
// so and offers capacity, not the token budget, as the lever.
TEST(CliWhyMissed, AnOverloadedRunSaysSoAndOffersCapacity) {
  const auto r = simulate_on_h100({"--load", data_path("mooncake_200.jsonl"), "--budget", "auto", "--slo",
                                   "ttft=2,tpot=0.1", "--summary-json", "-", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"main_cause\": \"overloaded\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"tune_space\": \"tp=1,2,4\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"load_demand\": "), std::string::npos) << r.out;
  const auto text = simulate_on_h100({"--load", data_path("mooncake_200.jsonl"), "--budget", "auto", "--slo", "ttft=2,tpot=0.1"});
  EXPECT_NE(text.out.find("\noverloaded      "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("The load outruns this server"), std::string::npos) << text.out;
}

// A tune whose chosen policy never changed level says its thresholds were never exercised; one
// whose cache filled does not.
TEST(CliWhyMissed, TuneSaysWhenThePolicyWasNeverExercised) {
  const auto tune = [](const std::string& budget) {
    std::vector<std::string> argv{cli_path(), "tune", "--load", data_path("azure_conv_500.csv"), "--budget", budget,
                                  "--slo", "ttft=1,tpot=0.05", "--space", "q8_threshold=0.5,0.7", "--objective",
                                  "max:goodput_rps"};
    argv.insert(argv.end(), llama_on_h100.begin(), llama_on_h100.end());
    return run_process(argv);
  };
  const auto roomy = tune("auto");
  ASSERT_EQ(roomy.exit_code, 0) << roomy.err;
  EXPECT_NE(roomy.out.find("note        the chosen policy never changed level (KV usage peaked at "), std::string::npos)
      << roomy.out;
  const auto tight = tune("1GiB");
  ASSERT_EQ(tight.exit_code, 0) << tight.err;
  EXPECT_EQ(tight.out.find("never changed level"), std::string::npos) << tight.out;
}

}  // namespace
}  // namespace kvscope::test
