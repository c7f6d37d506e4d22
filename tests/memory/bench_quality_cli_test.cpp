#include <gtest/gtest.h>

#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "process.hpp"
#include "temp_dir.hpp"

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
                          "q4o +5.1484 +[0-9.e+-]+ +2\\.165200e-01 +\\(2 key channels"}) {
    EXPECT_TRUE(std::regex_search(r.out, std::regex(std::string("\n") + row))) << row << "\n" << r.out;
  }
}

// With --kv-sample the q4o line follows the five levels (q3 the last), measured on the file's
// keys; --q3 adds its codebook's line after q4o's.
TEST(BenchQualityCli, Q4oOnAKvSample) {
  test::temp_dir dir;
  const std::string header =
      R"({"k":{"dtype":"F32","shape":[64,1,32],"data_offsets":[0,8192]},)"
      R"("v":{"dtype":"F32","shape":[64,1,32],"data_offsets":[8192,16384]}})";
  std::vector<float> data(2 * 64 * 32);
  for (std::size_t i = 0; i < data.size(); ++i) {
    data[i] = static_cast<float>((i * 7919) % 101) / 50.0f - 1.0f;
    if (i < data.size() / 2 && i % 32 == 5) data[i] *= 10.0f;
  }
  std::string bytes(8, '\0');
  const std::uint64_t n = header.size();
  std::memcpy(bytes.data(), &n, 8);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(data.data()), data.size() * sizeof(float));
  test::write_text(dir.file("kv.safetensors"), bytes);
  const auto r = run_process({cli_path(), "bench", "quality", "--kv-sample", dir.file("kv.safetensors"),
                              "--q4-format", "q4o"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("\nq4 +[0-9.e+-]+ +[0-9.e+-]+\nq3 +[0-9.e+-]+ +[0-9.e+-]+\nq4o +[0-9.e+-]+ +- +\\(4 key")))
      << r.out;
  // --q3 adds its line after q4o's.
  const auto q3 = run_process({cli_path(), "bench", "quality", "--kv-sample", dir.file("kv.safetensors"),
                               "--q4-format", "q4o", "--q3"});
  ASSERT_EQ(q3.exit_code, 0) << q3.err;
  EXPECT_TRUE(std::regex_search(q3.out, std::regex("\nq4o +[0-9.e+-]+ +- +.*\nq3 +[0-9.e+-]+ +- +\\(lloyd-max codebook, 4 key")))
      << q3.out;
}

// The q3 level's row follows q4's, before q4o, with its bits per value: tiny's head_dim 64 gives
// 3 + 16 / 64 + 76 x 8 / 2,048 = 3.5469. --q3 alone prints the same table.
TEST(BenchQualityCli, Q3RowAfterQ4o) {
  for (const char* format : {"q4o", "q4"}) {
    const auto r = run_process({cli_path(), "bench", "quality", "--model", "tiny", "--context", "64",
                                "--sequences", "1", "--q4-format", format, "--q3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::regex_search(
        r.out, std::regex("\nq3 +3\\.5469 +[0-9.e+-]+ +[0-9.e+-]+ +\\(lloyd-max codebook, 4 key[^\n]*\nq4o +5\\.2969 ")))
        << r.out;
  }
  const auto u = run_process({cli_path(), "bench", "quality", "--model", "tiny", "--context", "64",
                              "--sequences", "1", "--q3", "--q3-codebook", "uniform"});
  ASSERT_EQ(u.exit_code, 0) << u.err;
  EXPECT_NE(u.out.find("(uniform codebook"), std::string::npos) << u.out;
  EXPECT_EQ(run_process({cli_path(), "bench", "quality", "--q3", "--q3-codebook", "max"}).exit_code, 2);
}

TEST(BenchQualityCli, BadQ4FormatExitsTwo) {
  EXPECT_EQ(run_process({cli_path(), "bench", "quality", "--q4-format", "q5"}).exit_code, 2);
  EXPECT_EQ(run_process({cli_path(), "bench", "quality", "--q4o-channels", "17"}).exit_code, 2);
}

}  // namespace
}  // namespace kvscope
