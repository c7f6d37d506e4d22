// `kvscope-cli info` and `record` end to end: figures, JSON keys, record → replay, and every
// bad-input case with its message and exit code 2.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

process_result cli(std::vector<std::string> args) {
  args.insert(args.begin(), cli_path());
  return run_process(args);
}

// Everything after the header line of a native file: the requests.
std::string body(const std::string& text) { return text.substr(text.find('\n') + 1); }

nlohmann::json info_json(const std::string& spec, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"info", "--load", spec, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(InfoCli, JsonOnTheRealAzureSlice) {
  const auto j = info_json(data_path("azure_conv_500.csv"));
  EXPECT_EQ(j["requests"], 500);
  EXPECT_EQ(j["prompt_tokens"], 467684);
  EXPECT_EQ(j["output_tokens"], 132536);
  EXPECT_NEAR(j["duration_s"].get<double>(), 129.012474, 1e-9);
  EXPECT_EQ(j["skipped_rows"], 0);
  EXPECT_EQ(j["format"], "azure");
  for (const char* key : {"p50", "p90", "p99"}) {
    EXPECT_TRUE(j["prompt_percentiles"].contains(key));
    EXPECT_TRUE(j["output_percentiles"].contains(key));
  }
}

TEST(InfoCli, TextOnBurstGptCountsFailedRequests) {
  const auto r = cli({"info", "--load", data_path("burstgpt_sample.csv")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("requests        4\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("skipped rows    2  (0 bad, 2 failed requests)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("duration        160.000 s"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("2 failed requests (0 response tokens) skipped"), std::string::npos) << r.err;
}

TEST(InfoCli, GeneratedLoadAndTiming) {
  const auto j = info_json("gen:rate=4,burstiness=0.5,prompt=lognormal:1000:0.8,output=uniform:200:0.5,"
                           "duration=600,seed=7",
                           {"--timing", "--repeat", "2"});
  EXPECT_EQ(j["format"], "gen");
  EXPECT_GT(j["requests"].get<int>(), 2000);
  EXPECT_LT(j["duration_s"].get<double>(), 600.0);
  EXPECT_EQ(j["timing"]["repeats"], 2);
  EXPECT_GT(j["timing"]["rows_per_s"].get<double>(), 0.0);
}

TEST(RecordCli, RecordThenReplayIsIdenticalForGeneratedAndEveryRecordedFormat) {
  temp_dir dir;
  const std::vector<std::string> loads = {
      "gen:rate=20,burstiness=2,prompt=zipf:1.3:3000,output=lognormal:150:0.5,count=2000,"
      "prefix_groups=4,prefix_len=128,seed=3",
      data_path("azure_conv_500.csv"), data_path("azure2024_sample.csv"),
      data_path("burstgpt_sample.csv"), data_path("vidur_sample.csv"),
      data_path("mooncake_200.jsonl")};
  for (const auto& load : loads) {
    const auto a = dir.file("a.jsonl"), b = dir.file("b.jsonl");
    auto r = cli({"record", "--load", load, "--out", a});
    ASSERT_EQ(r.exit_code, 0) << load << ": " << r.err;
    r = cli({"record", "--load", a, "--out", b});
    ASSERT_EQ(r.exit_code, 0) << load << ": " << r.err;
    EXPECT_EQ(body(read_text(a)), body(read_text(b))) << load;
    // The replayed file reports what the original does.
    auto original = info_json(load), replay = info_json(a);
    for (const char* key : {"requests", "prompt_tokens", "output_tokens", "duration_s",
                            "prompt_percentiles", "output_percentiles", "prefix_blocks"}) {
      EXPECT_EQ(original[key], replay[key]) << load << " " << key;
    }
  }
}

TEST(RecordCli, GeneratedLoadIsRecordedUnderItsCanonicalSpec) {
  temp_dir dir;
  const auto out = dir.file("g.jsonl");
  const auto r = cli({"record", "--load", "gen:count=2,seed=9", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, out + ": 2 requests recorded\n");
  const auto text = read_text(out);
  EXPECT_TRUE(text.starts_with(
      "{\"format\":\"kvscope-load\",\"version\":1,\"source\":\"gen:rate=1,burstiness=1,"
      "prompt=fixed:512,output=fixed:128,count=2,seed=9,block=16\"}\n{\"id\":0,\"arrival_s\":0,"
      "\"prompt_tokens\":512,\"output_tokens\":128}\n"))
      << text;
}

TEST(RecordCli, ABadLoadLeavesTheTargetUntouched) {
  temp_dir dir;
  const auto bad = dir.file("bad.csv"), out = dir.file("out.jsonl");
  write_text(bad, "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,1,1\nx,1,1\n");
  write_text(out, "precious");
  const auto r = cli({"record", "--load", bad, "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(read_text(out), "precious");
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 2);  // no temp file left
  const auto missing_dir = cli({"record", "--load", "gen:count=1", "--out", dir.file("no/such/dir.jsonl")});
  // Checked before the load is read: a bad --out is bad usage (2), not a failure halfway (1).
  EXPECT_EQ(missing_dir.exit_code, 2);
  EXPECT_NE(missing_dir.err.find("folder '" + dir.file("no/such") + "' does not exist"),
            std::string::npos)
      << missing_dir.err;
}

// One bad-input case: the file's text, extra options, and the expected first stderr line.
struct bad_case {
  const char* name;
  std::string text;
  std::vector<std::string> options;
  std::string message;  // after "<path>"
  bool hints_skip;      // a row problem: the hint about --skip-bad-rows follows
};

class BadInputCli : public ::testing::TestWithParam<bad_case> {};

TEST_P(BadInputCli, MessageAndExitCode2ForInfoAndRecord) {
  const auto& c = GetParam();
  temp_dir dir;
  const auto path = dir.file("load.txt");
  write_text(path, c.text);
  for (const char* command : {"info", "record"}) {
    std::vector<std::string> args = {command, "--load", path};
    if (std::string(command) == "record") {
      args.push_back("--out");
      args.push_back(dir.file("out.jsonl"));
    }
    args.insert(args.end(), c.options.begin(), c.options.end());
    const auto r = cli(args);
    EXPECT_EQ(r.exit_code, 2) << command << " " << c.name << ": " << r.err;
    const std::string first = r.err.substr(0, r.err.find('\n'));
    EXPECT_EQ(first, path + c.message) << command << " " << c.name;
    EXPECT_EQ(r.err.find("--skip-bad-rows skips") != std::string::npos, c.hints_skip) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir.file("out.jsonl")));
  }
}

const std::string azure = "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n";

INSTANTIATE_TEST_SUITE_P(
    Cases, BadInputCli,
    ::testing::Values(
        bad_case{"missing_column_header", "TIMESTAMP,ContextTokens\n2023-11-16 18:15:46,1\n",
                 {"--format", "azure"},
                 ":1: header has no column 'GeneratedTokens' (the azure format needs TIMESTAMP, "
                 "ContextTokens, GeneratedTokens; the header is 'TIMESTAMP,ContextTokens')",
                 false},
        bad_case{"missing_column_row", azure + "2023-11-16 18:15:47,374\n", {},
                 ":3: row has 2 fields, the header has 3 (column 'GeneratedTokens' is missing)", true},
        bad_case{"non_numeric", azure + "2023-11-16 18:15:47,lots,44\n", {},
                 ":3: column 'ContextTokens': 'lots' is not a number", true},
        bad_case{"negative", azure + "2023-11-16 18:15:47,374,-44\n", {},
                 ":3: column 'GeneratedTokens': '-44' is negative", true},
        bad_case{"timestamp_unparsable", azure + "16/11/2023 18:15:47,374,44\n", {},
                 ":3: column 'TIMESTAMP': cannot parse timestamp '16/11/2023 18:15:47' (expected "
                 "YYYY-MM-DD HH:MM:SS[.fraction][+HH:MM])",
                 true},
        bad_case{"non_monotonic", azure + "2023-11-16 18:15:40,374,44\n", {},
                 ":3: time goes back 6.68059 s (to -6.68059 s after the first request, previous row "
                 "at 0 s; tolerance 0.001 s)",
                 true},
        bad_case{"truncated_json",
                 "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2}\n"
                 "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": [2\n",
                 {}, ":2: truncated JSON: an object or array is not closed", true},
        bad_case{"empty_file", "", {}, ": empty file", false},
        bad_case{"header_only", "arrived_at,num_prefill_tokens,num_decode_tokens\n", {},
                 ": no requests: no data rows after line 1", false},
        bad_case{"wrong_format_forced", azure, {"--format", "mooncake"},
                 ":1: --format mooncake does not match this file, whose first line is in the azure "
                 "format",
                 false},
        bad_case{"wrong_format_forced_unknown_header", "a,b\n1,2\n", {"--format", "burstgpt"},
                 ":1: header has no column 'Timestamp' (the burstgpt format needs Timestamp, Request "
                 "tokens, Response tokens; the header is 'a,b')",
                 false},
        bad_case{"binary_garbage", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0", 20), {},
                 ":1: binary data, not a text trace (first bytes '\\x89PNG')", false},
        bad_case{"binary_garbage_no_newline", std::string("\x00\x01\x02\x03\xff\xfe", 6), {},
                 ":1: binary data, not a text trace (first bytes '\\x00\\x01\\x02\\x03\\xff\\xfe')",
                 false},
        bad_case{"unknown_text", "just some notes\nnothing else\n", {},
                 ":1: unknown format: the first line 'just some notes' is not a header of a known "
                 "trace (azure: TIMESTAMP,ContextTokens,GeneratedTokens; burstgpt: Timestamp,...,"
                 "Request tokens,Response tokens; vidur: arrived_at,num_prefill_tokens,"
                 "num_decode_tokens; mooncake or native JSON lines); use --format",
                 false}),
    [](const ::testing::TestParamInfo<bad_case>& p) { return std::string(p.param.name); });

TEST(BadInputCli, SkipBadRowsSkipsCountsAndReports) {
  temp_dir dir;
  const auto path = dir.file("t.csv");
  write_text(path, azure + "2023-11-16 18:15:47,lots,44\n2023-11-16 18:15:48,1,2\n2023-11-16 18:15:49,3\n");
  const auto r = cli({"info", "--load", path, "--json", "--skip-bad-rows"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["requests"], 2);
  EXPECT_EQ(j["skipped_rows"], 2);
  EXPECT_EQ(j["bad_rows"], 2);
  EXPECT_EQ(r.err, "kvscope-cli: 2 bad rows skipped:\n  " + path +
                       ":3: column 'ContextTokens': 'lots' is not a number\n  " + path +
                       ":5: row has 2 fields, the header has 3 (column 'GeneratedTokens' is "
                       "missing)\n");
}

TEST(BadInputCli, GeneratorSpecErrorsAndMissingFiles) {
  auto r = cli({"info", "--load", "gen:rate=4,duration=10,colour=red"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.starts_with("gen spec: unknown key 'colour' (known: rate,")) << r.err;
  r = cli({"info", "--load", "gen:rate=fast,duration=10"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gen spec: rate='fast': is not a number\n");
  r = cli({"info", "--load", "/nonexistent/trace.csv"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "/nonexistent/trace.csv: cannot open: No such file or directory\n");
  r = cli({"info", "--load", data_path("vidur_sample.csv"), "--format", "parquet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--format"), std::string::npos) << r.err;
  r = cli({"info"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--load is required"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kvscope::test
