#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "process.hpp"
#include "quant/q3.hpp"
#include "quant/q4o.hpp"

namespace kvscope {
namespace {

using test::cli_path;
using test::run_process;

// Small and quick: this checks the output contract, not the speed.
TEST(BenchQuantCli, JsonHasTheDocumentedShape) {
  const auto r = run_process({cli_path(), "bench", "quant", "--mib", "1", "--repeat", "1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::ordered_json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j.begin().key(), "memcpy_ns_per_elem");
  EXPECT_GT(j["memcpy_ns_per_elem"].get<double>(), 0.0);
  ASSERT_EQ(j["kernels"].size(), 3u);
  const char* tiers[] = {"q8", "fp8", "q4"};
  const char* keys[] = {"precision", "quantize_ns_per_elem", "dequantize_ns_per_elem",
                        "quantize_vs_memcpy", "dequantize_vs_memcpy", "rel_rmse"};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& k = j["kernels"][i];
    ASSERT_EQ(k.size(), 6u);
    std::size_t at = 0;
    for (auto it = k.begin(); it != k.end(); ++it, ++at) EXPECT_EQ(it.key(), keys[at]);
    EXPECT_EQ(k["precision"], tiers[i]);
    EXPECT_GT(k["quantize_ns_per_elem"].get<double>(), 0.0);
    EXPECT_GT(k["rel_rmse"].get<double>(), 0.0);
    EXPECT_LT(k["rel_rmse"].get<double>(), 0.2);
  }
}

// --q4-format q4o adds the outlier-aware format as a fourth row, keys only, well below q4's error.
TEST(BenchQuantCli, Q4oFormatAddsARow) {
  for (const char* kernels : {"best", "scalar"}) {
    const auto r = run_process({cli_path(), "bench", "quant", "--mib", "1", "--repeat", "1", "--json",
                                "--kernels", kernels, "--q4-format", "q4o"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::ordered_json::parse(r.out);
    ASSERT_EQ(j["kernels"].size(), 4u);
    const auto& q4o = j["kernels"][3];
    EXPECT_EQ(q4o["precision"], "q4o");
    EXPECT_GT(q4o["dequantize_ns_per_elem"].get<double>(), 0.0);
    EXPECT_GT(q4o["rel_rmse"].get<double>(), 0.0);
    EXPECT_LT(q4o["rel_rmse"].get<double>(), 0.5 * j["kernels"][2]["rel_rmse"].get<double>());
  }
  EXPECT_EQ(run_process({cli_path(), "bench", "quant", "--q4-format", "q5"}).exit_code, 2);
  EXPECT_EQ(run_process({cli_path(), "bench", "quant", "--q4o-channels", "17"}).exit_code, 2);
}

// --q3 adds q3 on key tiles with the outlier channels (q3k) and on value tiles (q3v); at 3 bits
// their error is the codebook's (Lloyd-Max: 0.186 on Gaussian values), not far above q4's.
TEST(BenchQuantCli, Q3AddsKeyAndValueRows) {
  for (const char* kernels : {"best", "scalar"}) {
    const auto r = run_process({cli_path(), "bench", "quant", "--mib", "1", "--repeat", "1", "--json",
                                "--kernels", kernels, "--q3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::ordered_json::parse(r.out);
    ASSERT_EQ(j["kernels"].size(), 5u);
    EXPECT_EQ(j["kernels"][3]["precision"], "q3k");
    EXPECT_EQ(j["kernels"][4]["precision"], "q3v");
    for (std::size_t i : {3, 4}) {
      EXPECT_GT(j["kernels"][i]["dequantize_ns_per_elem"].get<double>(), 0.0);
      EXPECT_GT(j["kernels"][i]["rel_rmse"].get<double>(), 0.05);
      EXPECT_LT(j["kernels"][i]["rel_rmse"].get<double>(), 0.2);
    }
  }
}

TEST(BenchQuantCli, TextOutputAndScalarKernels) {
  const auto r =
      run_process({cli_path(), "bench", "quant", "--mib", "1", "--repeat", "1", "--kernels", "scalar"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("kernels scalar"), std::string::npos);
  EXPECT_NE(r.out.find("q4"), std::string::npos);
}

// The tile formats pick their kernel sets apart from the levels' (an AVX-512 one where the levels
// stay AVX2): the header names each.
TEST(BenchQuantCli, NamesTheTileKernelSets) {
  const auto r = run_process({cli_path(), "bench", "quant", "--mib", "1", "--repeat", "1", "--q4-format", "q4o",
                              "--q3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string expected = "(q4o " + std::string(best_q4o_kernels().name) + ", q3 " +
                               std::string(best_q3_kernels().name) + ")";
  EXPECT_NE(r.out.find(expected), std::string::npos) << r.out;
}

TEST(BenchQuantCli, BadUsageExitsTwo) {
  EXPECT_EQ(run_process({cli_path(), "bench", "quant", "--mib", "0"}).exit_code, 2);
  EXPECT_EQ(run_process({cli_path(), "bench", "quant", "--kernels", "neon"}).exit_code, 2);
  EXPECT_EQ(run_process({cli_path(), "bench"}).exit_code, 2);
  EXPECT_EQ(run_process({cli_path(), "bench", "nonsense"}).exit_code, 2);
}

}  // namespace
}  // namespace kvscope
