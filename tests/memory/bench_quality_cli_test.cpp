#include <gtest/gtest.h>

#include <regex>

#include "process.hpp"

namespace kvscope {
namespace {

using test::cli_path;
using test::run_process;

// --q4-format q4o prints every level and both q4 formats with their bits per value.
TEST(BenchQualityCli, Q4oRowBesideTheLevels) {
  const auto r = run_process({cli_path(), "bench", "quality", "--model", "tiny", "--context", "64",
                              "--sequences", "1", "--q4-format", "q4o", "--q4o-channels", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* row : {"fp16 +16.0000 ", "q8 +8.5000 ", "fp8 +8.5000 ", "q4 +5.0000 ",
                          "q4o +5.1484 +[0-9.e+-]+ +- +\\(2 key channels"}) {
    EXPECT_TRUE(std::regex_search(r.out, std::regex(std::string("\n") + row))) << row << "\n" << r.out;
  }
}

TEST(BenchQualityCli, BadQ4FormatExitsTwo) {
  EXPECT_EQ(run_process({cli_path(), "bench", "quality", "--q4-format", "q5"}).exit_code, 2);
  EXPECT_EQ(run_process({cli_path(), "bench", "quality", "--q4o-channels", "17"}).exit_code, 2);
}

}  // namespace
}  // namespace kvscope
