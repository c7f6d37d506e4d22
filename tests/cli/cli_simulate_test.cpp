// `kvscope-cli simulate` and `replay` end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

constexpr const char* simulate_load =
    "gen:rate=20,prompt=lognormal:500:0.6,output=uniform:120:0.5,count=150,seed=11";

TEST(CliSimulate, SummaryJsonHasTheDocumentedKeys) {
  temp_dir dir;
  const auto summary = dir.file("summary.json");
  const auto r = run_process({cli_path(), "simulate", "--load", simulate_load, "--model", "tiny", "--budget",
                              "4MiB", "--payload", "data", "--summary-json", summary});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("requests        150 total, 150 finished, 0 rejected"), std::string::npos)
      << r.out;
  const auto j = nlohmann::json::parse(read_text(summary));
  for (const char* key :
       {"requests_total", "requests_finished", "requests_rejected", "preemptions",
        "level_transitions", "peak_usage", "mean_usage", "steps", "sim_seconds", "wall_seconds",
        "decode_token_steps", "decode_token_steps_per_s", "prefix_cache_hit_rate",
        "peak_bytes_per_level", "quality"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["requests_total"], 150);
  // Every level, q3 last (kvscope's own level: 0 bytes unless a policy asks for it).
  EXPECT_EQ(j["peak_bytes_per_level"].size(), 5u);
  EXPECT_EQ(j["peak_bytes_per_level"]["q3"], 0);
  EXPECT_TRUE(j["quality"]["q3"]["quant_rel_rmse"].is_null());
  EXPECT_TRUE(j["quality"]["fp16"]["quant_rel_rmse"].is_number());
}

TEST(CliSimulate, MetricsCsvHasOneRowPerKthStep) {
  temp_dir dir;
  const auto csv = dir.file("m.csv");
  const auto summary = dir.file("s.json");
  const auto r = run_process({cli_path(), "simulate", "--load", simulate_load, "--model", "tiny", "--budget",
                              "4MiB", "--metrics", csv, "--metrics-every", "10", "--summary-json",
                              summary, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const auto steps = nlohmann::json::parse(read_text(summary))["steps"].get<int>();
  std::ifstream in(csv);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 1 + (steps + 9) / 10);
}

TEST(CliSimulate, SessionReplaysToTheSameFigures) {
  temp_dir dir;
  const auto session = dir.file("s.session.json");
  const auto a = run_process({cli_path(), "simulate", "--load", simulate_load, "--model", "tiny", "--budget",
                              "4MiB", "--preset", "aggressive", "--session", session,
                              "--summary-json", "-"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto b = run_process({cli_path(), "replay", "--session", session, "--summary-json", "-"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  auto ja = nlohmann::json::parse(a.out);
  auto jb = nlohmann::json::parse(b.out);
  for (auto* j : {&ja, &jb}) {
    j->erase("wall_seconds");
    j->erase("decode_token_steps_per_s");
  }
  EXPECT_EQ(ja, jb);
}

TEST(CliSimulate, BadInputExitsTwoWithAClearMessage) {
  auto r = run_process({cli_path(), "simulate", "--load", simulate_load, "--budget", "lots"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--budget: not a size: 'lots'"), std::string::npos) << r.err;

  r = run_process({cli_path(), "simulate", "--load", simulate_load, "--model", "gpt-9"});
  EXPECT_EQ(r.exit_code, 2);

  r = run_process({cli_path(), "simulate", "--load", simulate_load, "--model", "llama3-70b", "--budget", "1MiB"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("budget"), std::string::npos) << r.err;

  temp_dir dir;
  const auto trace = dir.file("bad.csv");
  write_text(trace, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n"
                    "2023-11-16 18:15:50.9951690,abc,109\n");
  r = run_process({cli_path(), "simulate", "--load", trace, "--model", "tiny", "--budget", "4MiB"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(trace + ":3:"), std::string::npos) << r.err;

  r = run_process({cli_path(), "replay", "--session", trace});
  EXPECT_EQ(r.exit_code, 2);

  // A mistyped option is named with the one it most likely meant; nothing is made up for others.
  r = run_process({cli_path(), "simulate", "--load", simulate_load, "--budjet", "1GiB", "--what=1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--budjet: did you mean '--budget'?"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("--what:"), std::string::npos) << r.err;
}

TEST(CliSimulate, ImpossibleRequestsAreReportedAsRejected) {
  const auto r = run_process({cli_path(), "simulate", "--load",
                              "gen:rate=1,prompt=fixed:100000,output=fixed:5,count=2,seed=1",
                              "--model", "tiny", "--budget", "1MiB", "--preset", "fp16_only"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 rejected"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("rejected: needs"), std::string::npos) << r.err;
}

// Hundreds of refusals (a long-context trace on a short-context model) are told as a count per
// cause with its first request, not one line each; the --requests file keeps every one.
TEST(CliSimulate, ManyRejectionsAreCountedByCause) {
  temp_dir dir;
  const auto requests = dir.file("requests.csv");
  const auto r = run_process({cli_path(), "simulate", "--load",
                              "gen:rate=1,prompt=fixed:100000,output=fixed:5,count=30,seed=1",
                              "--model", "tiny", "--budget", "1MiB", "--preset", "fp16_only",
                              "--requests", requests});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("30 rejected"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("30 requests rejected; each is in " + requests), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("30 larger than the whole KV pool, the first request 0: needs"), std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  const std::string csv = read_text(requests);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 31) << csv;  // header and every request
}

// A Hugging Face config.json with a field of the wrong type is refused before any run, naming it.
TEST(CliSimulate, ABadModelConfigIsRefusedNamingTheField) {
  temp_dir dir;
  const auto model = dir.file("config.json");
  write_text(model, R"({"num_hidden_layers": "thirty-two", "num_attention_heads": 32,
    "hidden_size": 4096, "intermediate_size": 14336, "vocab_size": 128256, "torch_dtype": "bfloat16"})");
  const auto r = run_process({cli_path(), "simulate", "--load", simulate_load, "--model", model, "--budget", "4MiB"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("num_hidden_layers"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--model"), std::string::npos) << r.err;
}

// A row whose lengths overflow what a request may hold is refused before the run, naming the
// file, the line and the field.
TEST(CliSimulate, LengthsThatCannotBeAreRefusedBeforeTheRun) {
  temp_dir dir;
  const auto trace = dir.file("big.jsonl");
  write_text(trace,
             "{\"format\":\"kvscope-load\",\"version\":1,\"source\":\"test\"}\n"
             "{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":10,\"output_tokens\":5}\n"
             "{\"id\":1,\"arrival_s\":1,\"prompt_tokens\":10,\"output_tokens\":4294967295}\n");
  const auto metrics = dir.file("m.csv");
  const auto r = run_process({cli_path(), "simulate", "--load", trace, "--model", "tiny", "--budget",
                              "4MiB", "--metrics", metrics});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(trace + ":3: field 'output_tokens': prompt + output = 4294967305 tokens"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(metrics)) << "refused before the run";
}

// --budget auto sizes the cache as vLLM would and says what it chose; without a GPU it is refused.
TEST(CliSimulate, BudgetAutoNeedsAGpuAndReportsWhatItChose) {
  auto r = run_process({cli_path(), "simulate", "--load", simulate_load, "--model", "llama3-8b", "--budget", "auto"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("budget auto needs a GPU to size the KV cache on"), std::string::npos) << r.err;
  r = run_process({cli_path(), "simulate", "--load", simulate_load, "--model", "llama3-8b", "--budget", "auto",
                   "--gpu", "h100", "--summary-json", "-"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["budget_bytes"].get<std::uint64_t>(), 40ull << 30);
  EXPECT_LT(j["budget_bytes"].get<std::uint64_t>(), 70ull << 30);
  EXPECT_EQ(j["gpu"], "h100");
  EXPECT_EQ(j["timing"], "roofline");
}

// --requests writes one row per request, finished or rejected.
TEST(CliSimulate, RequestsFileHasARowPerRequest) {
  temp_dir dir;
  const auto requests = dir.file("requests.csv");
  const auto r = run_process({cli_path(), "simulate", "--load", simulate_load, "--model", "tiny", "--budget",
                              "4MiB", "--requests", requests, "--slo", "ttft=0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(read_text(requests));
  std::string header, line;
  std::getline(lines, header);
  EXPECT_EQ(header.rfind("request_id,arrival_s,first_scheduled_s,first_token_s,finish_s,", 0), 0u);
  std::size_t rows = 0;
  while (std::getline(lines, line)) ++rows;
  EXPECT_EQ(rows, 150u);
  EXPECT_NE(r.out.find("goodput"), std::string::npos);
}

}  // namespace
}  // namespace kvscope::test
