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

// q4 blocks stored as q4o: timed like the others, and read back within q4's error (the bench
// checks every slot against what it wrote; an outlier channel not restored is far outside it).
TEST(BenchPagedCli, Q4oBlocksWriteAndReadBack) {
  const auto r = run_process({cli_path(), "bench", "paged", "--seqs", "2", "--tokens", "40", "--layers", "2",
                              "--kv-heads", "2", "--head-dim", "64", "--precision", "q4", "--q4-format", "q4o",
                              "--repeat", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_match(r.out, std::regex("write_slot_ns [0-9.]+ read_slot_ns [0-9.]+ read_floor_ns [0-9.]+\n")))
      << r.out;
  const auto other = run_process({cli_path(), "bench", "paged", "--precision", "q8", "--q4-format", "q4o"});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("--q4-format q4o stores q4 blocks"), std::string::npos) << other.err;
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
