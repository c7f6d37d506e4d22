// Result files as the vLLM versions write them: the field names of vLLM 0.5/0.6 and the chunked
// streaming of multi-step servers, read so that their figures mean what later files' do.
#include <gtest/gtest.h>

#include <cmath>

#include "load/vllm_bench.hpp"

namespace kvscope {
namespace {

// In the shape of a vLLM 0.6 benchmark_serving.py file: *_latency_ms for end-to-end latency, no
// *_tpot_ms, and ~10 tokens per streamed chunk (itls are the gaps between chunks). Request 2
// generated nothing: vLLM counts it with TTFT 0.0 and no gaps.
constexpr const char* v06_file = R"({
  "request_rate": "inf", "duration": 2.0, "completed": 3,
  "input_lens": [100, 200, 300], "output_lens": [21, 11, 0],
  "ttfts": [0.05, 0.06, 0.0],
  "itls": [[0.08, 0.08], [0.09], []],
  "mean_latency_ms": 180.0, "median_latency_ms": 150.0, "p99_latency_ms": 210.0,
  "mean_ttft_ms": 36.7, "median_ttft_ms": 50.0
})";

TEST(VllmBenchFile, LatencyFieldsOfVllm06AreEndToEnd) {
  const auto r = parse_vllm_bench(v06_file, "v06.json");
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->summary_ms.at("median_e2el_ms"), 150.0);
  EXPECT_EQ(r->summary_ms.at("mean_e2el_ms"), 180.0);
  EXPECT_EQ(r->summary_ms.at("p99_e2el_ms"), 210.0);
  EXPECT_EQ(r->summary_ms.at("median_latency_ms"), 150.0);  // kept as written too
}

TEST(VllmBenchFile, AFileOwnE2elIsNotReplaced) {
  const auto r = parse_vllm_bench(R"({"request_rate": 1, "duration": 1, "completed": 1,
    "input_lens": [1], "output_lens": [1], "median_e2el_ms": 7.0, "median_latency_ms": 9.0})", "both.json");
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->summary_ms.at("median_e2el_ms"), 7.0);
}

TEST(VllmBenchFile, TokensPerChunkShowsMultiStepStreaming) {
  const auto r = parse_vllm_bench(v06_file, "v06.json");
  ASSERT_TRUE(r.has_value()) << r.error();
  // (20 + 10) tokens after the first over 3 gaps.
  EXPECT_DOUBLE_EQ(r->tokens_per_chunk, 10.0);
}

// vLLM's TPOT is (latency - ttft) / (output_len - 1): the gaps' sum over the tokens, not over
// the chunks, and only for outputs of two tokens or more.
TEST(VllmBenchFile, TpotFromItlsCountsTokensNotChunks) {
  const auto r = parse_vllm_bench(v06_file, "v06.json");
  ASSERT_TRUE(r.has_value()) << r.error();
  const auto tpots = tpots_from_itls(*r);
  ASSERT_EQ(tpots.size(), 2u);
  EXPECT_NEAR(tpots[0], 0.16 / 20, 1e-12);
  EXPECT_NEAR(tpots[1], 0.09 / 10, 1e-12);
}

// Lists cut short (a hand-abbreviated file) do not add up to the file's own TPOT: no estimate,
// rather than "42 tokens per chunk".
TEST(VllmBenchFile, ItlsThatMissTheFilesTpotGiveNoChunkEstimate) {
  const auto whole = parse_vllm_bench(R"({"request_rate": 1, "duration": 1, "completed": 1,
    "input_lens": [1], "output_lens": [21], "itls": [[0.08, 0.08]], "median_tpot_ms": 8.0})", "whole.json");
  ASSERT_TRUE(whole.has_value()) << whole.error();
  EXPECT_DOUBLE_EQ(whole->tokens_per_chunk, 10.0);
  const auto cut = parse_vllm_bench(R"({"request_rate": 1, "duration": 1, "completed": 1,
    "input_lens": [1], "output_lens": [128], "itls": [[0.0065, 0.0066]], "median_tpot_ms": 6.55})", "cut.json");
  ASSERT_TRUE(cut.has_value()) << cut.error();
  EXPECT_EQ(cut->tokens_per_chunk, 0.0);
}

TEST(VllmBenchFile, NoItlsNoChunkEstimate) {
  const auto r = parse_vllm_bench(R"({"request_rate": 1, "duration": 1, "completed": 1,
    "input_lens": [1], "output_lens": [5]})", "plain.json");
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->tokens_per_chunk, 0.0);
  EXPECT_TRUE(tpots_from_itls(*r).empty());
}

}  // namespace
}  // namespace kvscope
