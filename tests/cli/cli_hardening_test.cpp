// The CLI refuses bad input files and unsafe output paths with exit 2 before any work starts,
// and leaves its inputs untouched.
#include <gtest/gtest.h>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

constexpr const char* small_load = "gen:rate=20,prompt=fixed:64,output=fixed:8,count=20,seed=3";

TEST(CliInputs, PolicyNumberOutOfRangeExitsTwoNamingTheField) {
  temp_dir dir;
  const auto json = dir.file("p.json");
  const auto toml = dir.file("p.toml");
  write_text(json, "{\"q8_threshold\": 1e400}\n");
  write_text(toml, "q8_threshold = 1e400\n");
  for (const auto& [path, line] : {std::pair{json, ":1"}, std::pair{toml, ":1"}}) {
    const auto v = run_process({cli_path(), "validate", path});
    EXPECT_EQ(v.exit_code, 2) << v.err;
    EXPECT_EQ(v.err, path + line + ": field 'q8_threshold': number out of range\n");
    const auto s = run_process({cli_path(), "simulate", "--load", small_load, "--model", "tiny",
                                "--budget", "4MiB", "--policy", path});
    EXPECT_EQ(s.exit_code, 2) << s.err;
    EXPECT_EQ(s.err, "kvscope-cli: " + path + line + ": field 'q8_threshold': number out of range\n");
    EXPECT_EQ(s.out, "");
  }
}

}  // namespace
}  // namespace kvscope::test
