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

}  // namespace
}  // namespace kvscope::test
