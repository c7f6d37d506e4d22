// `kvscope-cli simulate` and `replay` end to end.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

constexpr const char* load =
    "gen:rate=20,prompt=lognormal:500:0.6,output=uniform:120:0.5,count=150,seed=11";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CliSimulate, SummaryJsonHasTheDocumentedKeys) {
  temp_dir dir;
  const auto summary = dir.file("summary.json");
  const auto r = run_process({cli_path(), "simulate", "--load", load, "--model", "tiny", "--budget",
                              "4MiB", "--payload", "data", "--summary-json", summary});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("requests        150 total, 150 finished, 0 rejected"), std::string::npos)
      << r.out;
  const auto j = nlohmann::json::parse(slurp(summary));
  for (const char* key :
       {"requests_total", "requests_finished", "requests_rejected", "preemptions",
        "level_transitions", "peak_usage", "mean_usage", "steps", "sim_seconds", "wall_seconds",
        "decode_token_steps", "decode_token_steps_per_s", "prefix_cache_hit_rate",
        "peak_bytes_per_level", "quality"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["requests_total"], 150);
  EXPECT_EQ(j["peak_bytes_per_level"].size(), 4u);
  EXPECT_TRUE(j["quality"]["fp16"]["quant_rel_rmse"].is_number());
}

TEST(CliSimulate, MetricsCsvHasOneRowPerKthStep) {
  temp_dir dir;
  const auto csv = dir.file("m.csv");
  const auto summary = dir.file("s.json");
  const auto r = run_process({cli_path(), "simulate", "--load", load, "--model", "tiny", "--budget",
                              "4MiB", "--metrics", csv, "--metrics-every", "10", "--summary-json",
                              summary, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const auto steps = nlohmann::json::parse(slurp(summary))["steps"].get<int>();
  std::ifstream in(csv);
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_EQ(lines, 1 + (steps + 9) / 10);
}

TEST(CliSimulate, SessionReplaysToTheSameFigures) {
  temp_dir dir;
  const auto session = dir.file("s.session.json");
  const auto a = run_process({cli_path(), "simulate", "--load", load, "--model", "tiny", "--budget",
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
  auto r = run_process({cli_path(), "simulate", "--load", load, "--budget", "lots"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--budget: not a size: 'lots'"), std::string::npos) << r.err;

  r = run_process({cli_path(), "simulate", "--load", load, "--model", "gpt-9"});
  EXPECT_EQ(r.exit_code, 2);

  r = run_process({cli_path(), "simulate", "--load", load, "--model", "llama3-70b", "--budget", "1MiB"});
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
}

TEST(CliSimulate, ImpossibleRequestsAreReportedAsRejected) {
  const auto r = run_process({cli_path(), "simulate", "--load",
                              "gen:rate=1,prompt=fixed:100000,output=fixed:5,count=2,seed=1",
                              "--model", "tiny", "--budget", "1MiB", "--preset", "fp16_only"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2 rejected"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("rejected: needs"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kvscope::test
