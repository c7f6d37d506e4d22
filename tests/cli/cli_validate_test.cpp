#include <gtest/gtest.h>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

TEST(CliValidate, ValidConfigPrintsOneLineSummary) {
  temp_dir dir;
  const auto path = dir.file("ok.toml");
  write_text(path, "q8_threshold = 0.5\nq4_threshold = 0.8\newma_alpha = 0.3\nmin_level = \"q8\"\n");
  const auto r = run_process({cli_path(), "validate", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, path + ": valid policy: q8_threshold=0.5 q4_threshold=0.8 hysteresis=0.05 "
                          "ewma_alpha=0.3 levels=q8..q4\n");
}

// A policy that reaches q3 is valid for kvscope; validate says the reference runtime cannot run it.
TEST(CliValidate, AQ3PolicyIsValidWithTheNote) {
  temp_dir dir;
  const auto path = dir.file("q3.toml");
  write_text(path, "family = \"static\"\nfixed_level = \"q3\"\n");
  const auto r = run_process({cli_path(), "validate", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, path + ": valid policy: family=static fixed_level=q3\n" + path +
                       ": note: this policy uses q3, kvscope's 3-bit level: the reference runtime stops at q4 "
                       "and cannot run it\n");
}

TEST(CliValidate, InvalidConfigExitsTwoWithTheReason) {
  temp_dir dir;
  const auto path = dir.file("bad.json");
  write_text(path, R"({"q8_threshold": 0.9, "q4_threshold": 0.5})");
  const auto r = run_process({cli_path(), "validate", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, path + ": invalid kv-cache policy configuration: q4_threshold must be >= "
                          "q8_threshold\n");
  EXPECT_EQ(r.out, "");
}

TEST(CliValidate, UnknownKeyAndMissingFile) {
  temp_dir dir;
  const auto path = dir.file("typo.json");
  write_text(path, "{\n  \"q8_treshold\": 0.9\n}\n");
  const auto r = run_process({cli_path(), "validate", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, path + ":2: unknown key 'q8_treshold'\n");

  const auto missing = run_process({cli_path(), "validate", dir.file("nope.toml")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, dir.file("nope.toml") + ": cannot open file\n");
}

}  // namespace
}  // namespace kvscope::test
