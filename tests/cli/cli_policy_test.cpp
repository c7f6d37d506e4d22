// `kvscope-cli policy` end to end: reference cases through the executable, and its errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

#include "policy_cases.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

std::string pressures_text(const std::vector<double>& pressures) {
  std::ostringstream out;
  out.precision(17);
  for (double p : pressures) out << p << "\n";
  return out.str();
}

std::string expected_output(const policy_case& c) {
  std::string out;
  char line[64];
  for (std::size_t i = 0; i < c.levels.size(); ++i) {
    std::snprintf(line, sizeof line, "%s %.12f\n", c.levels[i].c_str(), c.ewma[i]);
    out += line;
  }
  return out;
}

TEST(CliPolicy, ReferenceCasesThroughTheExecutable) {
  temp_dir dir;
  int run = 0;
  for (const auto& c : load_policy_cases()) {
    // A handful that cover smoothing, both bands, clamping and level limits.
    if (c.name != "drop_within_band_then_hard_drop" && c.name != "out_of_range_inputs_are_clamped" &&
        c.name != "max_level_fp8_clamps_q4" && c.name != "random_1" && c.name != "random_13" &&
        c.name != "inverted_thresholds" && c.name != "min_above_max") {
      continue;
    }
    SCOPED_TRACE(c.name);
    ++run;
    const auto config = dir.file(c.name + ".json");
    write_text(config, c.config_json.dump());
    const auto r = run_process({cli_path(), "policy", "--config", config},
                               c.error ? "0.5\n" : pressures_text(c.pressures));
    if (c.error) {
      EXPECT_EQ(r.exit_code, 2);
      EXPECT_EQ(r.out, "");
      EXPECT_NE(r.err.find(*c.error), std::string::npos) << r.err;
      continue;
    }
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, expected_output(c));
  }
  EXPECT_EQ(run, 7);
}

TEST(CliPolicy, PresetAndInputFile) {
  temp_dir dir;
  const auto input = dir.file("p.txt");
  write_text(input, "0.9\n# a comment\n\n1.0\n");
  const auto r = run_process({cli_path(), "policy", "--preset", "aggressive", "--input", input});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "q4 0.900000000000\nq4 0.930000001192\n");
}

TEST(CliPolicy, BadLineNamesInputAndLine) {
  const auto r = run_process({cli_path(), "policy", "--preset", "default"}, "0.5\n0.7\nabc\n0.9\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "<stdin>:3: not a number: 'abc'\n");
  EXPECT_EQ(r.out, "fp16 0.500000000000\nfp16 0.540000000596\n");  // lines before it were answered
}

TEST(CliPolicy, NonFinitePressureIsRejected) {
  temp_dir dir;
  const auto input = dir.file("p.txt");
  write_text(input, "0.5\nnan\n");
  const auto r = run_process({cli_path(), "policy", "--preset", "default", "--input", input});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, input + ":2: pressure is not finite: 'nan'\n");
}

TEST(CliPolicy, TrailingGarbageIsNotANumber) {
  const auto r = run_process({cli_path(), "policy", "--preset", "default"}, "0.5x\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "<stdin>:1: not a number: '0.5x'\n");
}

TEST(CliPolicy, UsageErrorsExitTwo) {
  EXPECT_EQ(run_process({cli_path(), "policy"}).exit_code, 2);
  EXPECT_EQ(run_process({cli_path(), "policy", "--preset", "nope"}).exit_code, 2);
  EXPECT_EQ(run_process({cli_path(), "policy", "--preset", "default", "--config", "x.json"}).exit_code,
            2);
  EXPECT_EQ(run_process({cli_path()}).exit_code, 2);
  EXPECT_EQ(run_process({cli_path(), "frobnicate"}).exit_code, 2);
}

TEST(CliPolicy, HelpAndVersion) {
  const auto help = run_process({cli_path(), "--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* sub : {"policy", "validate", "info", "record", "bench"}) {
    EXPECT_NE(help.out.find(sub), std::string::npos) << sub;
  }
  const auto policy_help = run_process({cli_path(), "policy", "--help"});
  EXPECT_EQ(policy_help.exit_code, 0);
  EXPECT_NE(policy_help.out.find("--preset"), std::string::npos);
  const auto version = run_process({cli_path(), "--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("kvscope-cli ", 0), 0u) << version.out;
}

}  // namespace
}  // namespace kvscope::test
