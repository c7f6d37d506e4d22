#include <gtest/gtest.h>

#include <regex>

#include "process.hpp"

namespace kvscope {
namespace {

using test::cli_path;
using test::run_process;

TEST(BenchPagedCli, PrintsNanosecondsPerSlotForEveryTier) {
  for (const char* p : {"fp16", "q8", "fp8", "q4"}) {
    const auto r = run_process({cli_path(), "bench", "paged", "--seqs", "2", "--tokens", "40",
                                "--layers", "2", "--kv-heads", "2", "--head-dim", "64",
                                "--precision", p, "--repeat", "1"});
    ASSERT_EQ(r.exit_code, 0) << p << ": " << r.err;
    EXPECT_TRUE(std::regex_match(r.out, std::regex("write_slot_ns [0-9.]+ read_slot_ns [0-9.]+ read_floor_ns [0-9.]+\n")))
        << r.out;
  }
}

TEST(BenchPagedCli, BadShapeIsBadInput) {
  const auto r = run_process({cli_path(), "bench", "paged", "--head-dim", "48", "--seqs", "1",
                              "--tokens", "8"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("head_dim must be a multiple of 32"), std::string::npos) << r.err;
  EXPECT_EQ(run_process({cli_path(), "bench", "paged", "--precision", "int3"}).exit_code, 2);
}

}  // namespace
}  // namespace kvscope
