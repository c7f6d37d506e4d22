// The fidelity set's reader (io/fidelity_points): rows become points, a bad row is refused
// naming its line and column.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "io/fidelity_points.hpp"
#include "run/option_table.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

const std::string header =
    "point_id,source,source_url,kvscope_gpu,kvscope_model,tp,input_len,output_len_nominal,"
    "output_len_mean_implied,mode,concurrency,request_rate,num_prompts,server_max_num_batched_tokens,"
    "server_max_num_seqs,server_max_model_len,server_gpu_memory_utilization,lengths_file,req_s,out_tok_s,"
    "ttft_mean_ms,ttft_median_ms,tpot_mean_ms,tpot_median_ms,itl_mean_ms,itl_median_ms,e2e_mean_ms,"
    "e2e_median_ms,excluded_figures,unusable_reason\n";
// A random-dataset row: 4000 in, 199.6 out (EOS), 500 prompts at once, with 8 figures.
const std::string good_row =
    "P1,src,https://example.org/a,h100,qwen3-32b,1,3995.9,200,199.6,rate,,inf,500,8192,1024,,0.9,,"
    "0.51,102.2,482284,483375,66.6,62.1,66.3,43.4,,,req_s,\n";

expected<std::vector<fidelity_point>, std::string> parse(const std::string& text) {
  return parse_fidelity_points(text, "points.csv", test::data_path("fidelity"));
}

std::size_t at(fidelity_figure f) { return static_cast<std::size_t>(f); }

TEST(FidelityPoints, ARandomDatasetRowIsItsRequestsOptionsAndFigures) {
  const auto points = parse(header + good_row);
  ASSERT_TRUE(points.has_value()) << points.error();
  ASSERT_EQ(points->size(), 1u);
  const auto& p = points->front();
  EXPECT_EQ(p.line, 2u);
  EXPECT_EQ(p.gpu, "h100");
  EXPECT_EQ(p.model, "qwen3-32b");
  ASSERT_EQ(p.requests.input_lens.size(), 500u);
  EXPECT_EQ(p.requests.input_lens.front(), 3996u);   // rounded
  EXPECT_EQ(p.requests.output_lens.front(), 200u);   // the implied mean, rounded
  EXPECT_TRUE(std::isinf(p.requests.request_rate));
  EXPECT_FALSE(p.requests.max_concurrency.has_value());
  EXPECT_EQ(p.options.size(), 6u);  // model, gpu, tp and three server limits (max_model_len blank)
  EXPECT_DOUBLE_EQ(p.measured[at(fidelity_figure::ttft_p50)], 483375);
  EXPECT_TRUE(std::isnan(p.measured[at(fidelity_figure::request_throughput)]));  // excluded
  EXPECT_TRUE(std::isnan(p.measured[at(fidelity_figure::e2e_mean)]));            // not published
}

// Empty outputs stay 0: the replay runs them as one token but counts them as vLLM's client did
// (TTFT 0), which it can only do knowing they were empty.
TEST(FidelityPoints, ALengthsFileRowKeepsItsLengthsAsWritten) {
  const std::string row =
      "P7,LambdaLabsML,https://example.org/b,h100,mistral-7b,1,158.5,ShareGPT,249,rate,,inf,10,2048,256,2000,"
      "0.9,lambda/mistral_h100_10.json,1.35,336.7,51.8,64.7,8.95,8.32,8.04,7.88,,,,\n";
  const auto points = parse(header + row);
  ASSERT_TRUE(points.has_value()) << points.error();
  const auto& r = points->front().requests;
  ASSERT_EQ(r.input_lens.size(), 10u);
  EXPECT_EQ(r.output_lens[4], 0u);
  EXPECT_EQ(r.output_lens[0], 129u);
}

// A server that ran multi-step scheduling says so in an optional column.
TEST(FidelityPoints, AMultiStepServerSetsNumSchedulerSteps) {
  auto with_column = header;
  with_column.insert(with_column.size() - 1, ",server_num_scheduler_steps");
  auto row = good_row;
  row.insert(row.size() - 1, ",10");
  const auto points = parse(with_column + row);
  ASSERT_TRUE(points.has_value()) << points.error();
  engine_options o;
  for (const auto& [spec, value] : points->front().options) spec->set(o, value);
  EXPECT_EQ(o.scheduler.num_scheduler_steps, 10u);
  auto zero = good_row;
  zero.insert(zero.size() - 1, ",0");
  const auto bad = parse(with_column + zero);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().find("field 'server_num_scheduler_steps'"), std::string::npos) << bad.error();
}

TEST(FidelityPoints, AnUnusableRowNeedsOnlyItsReason) {
  const auto points = parse(header + "P9,src,https://example.org/c,h100,,,,,,,,,,,,,,,,,,,,,,,,,,no config for this model\n");
  ASSERT_TRUE(points.has_value()) << points.error();
  EXPECT_EQ(points->front().unusable_reason, "no config for this model");
}

// Each broken row names the file, its line and the column.
TEST(FidelityPoints, ABadRowIsRefusedNamingLineAndField) {
  const auto replace = [](std::string row, const std::string& from, const std::string& to) {
    row.replace(row.find(from), from.size(), to);
    return row;
  };
  const std::pair<std::string, std::string> cases[] = {
      {replace(good_row, ",1,3995.9,", ",0,3995.9,"), "points.csv:3: field 'tp': --tp: "},
      {replace(good_row, "qwen3-32b", "qwen9"), "points.csv:3: field 'kvscope_model': --model: unknown model 'qwen9'"},
      {replace(good_row, ",rate,", ",burst,"), "points.csv:3: field 'mode': expected 'concurrency' or 'rate'"},
      {replace(good_row, ",rate,,", ",concurrency,,"), "points.csv:3: field 'concurrency': empty"},
      {replace(good_row, ",500,", ",many,"), "points.csv:3: field 'num_prompts': 'many' "},
      {replace(good_row, ",482284,", ",-3,"), "points.csv:3: field 'ttft_mean_ms': "},
      {replace(good_row, ",req_s,", ",itl_p99,"), "points.csv:3: field 'excluded_figures': 'itl_p99' is no figure column"},
      {replace(good_row, ",,0.9,,", ",,0.9,absent.json,"), "points.csv:3: field 'lengths_file': "},
  };
  for (const auto& [row, message] : cases) {
    const auto points = parse(header + good_row + row);
    ASSERT_FALSE(points.has_value()) << row;
    EXPECT_EQ(points.error().rfind(message, 0), 0u) << points.error();
  }
}

}  // namespace
}  // namespace kvscope
