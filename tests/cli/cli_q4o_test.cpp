// `kvscope-cli simulate --q4-format q4o`: the q4 level stored as q4o, end to end. It changes the
// bytes of a q4 block and the attention error the q4 level is charged, and nothing when not given.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace kvscope::test {
namespace {

// A load whose pressure takes the policy through q8 to q4 on tiny in 4 MiB.
constexpr const char* q4_reaching_load =
    "gen:rate=20,prompt=lognormal:500:0.6,output=uniform:120:0.5,count=150,seed=11";

std::vector<std::string> q4o_simulate(const std::vector<std::string>& extra) {
  std::vector<std::string> argv{cli_path(),  "simulate", "--load", q4_reaching_load, "--model", "tiny",
                                "--budget",  "4MiB",     "--q8-threshold", "0.3", "--q4-threshold", "0.5"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

// Runs the load and returns its summary JSON; its metrics CSV goes to NAME.csv in `dir`.
nlohmann::json q4o_summary(const temp_dir& dir, const std::string& name, const std::vector<std::string>& extra) {
  auto argv = q4o_simulate(extra);
  argv.insert(argv.end(), {"--summary-json", dir.file(name + ".json"), "--metrics", dir.file(name + ".csv")});
  const auto r = run_process(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(read_text(dir.file(name + ".json")));
}

// q4 typed out, with a channel count q4 never reads, is the default run, step for step; and a
// default summary does not mention the q4 storage at all.
TEST(CliQ4o, DefaultAndExplicitQ4AreTheSameRun) {
  temp_dir dir;
  const auto plain = q4o_summary(dir, "plain", {});
  const auto typed = q4o_summary(dir, "typed", {"--q4-format", "q4", "--q4o-channels", "9"});
  EXPECT_EQ(read_text(dir.file("plain.csv")), read_text(dir.file("typed.csv")));
  EXPECT_FALSE(plain.contains("q4_storage"));
  EXPECT_FALSE(typed.contains("q4_storage"));
  EXPECT_GT(plain["peak_bytes_per_level"]["q4"].get<double>(), 0);  // the run does reach q4
}

// q4o: the q4 blocks keep their side records with the scales (tiny, blocks of 16: 4,096 B of codes,
// 1,024 B of scales and 4 x 76 B of records) and the q4 level is charged q4o's error.
TEST(CliQ4o, Q4oChangesTheBytesOfAQ4BlockAndTheExposure) {
  temp_dir dir;
  const auto q4 = q4o_summary(dir, "q4", {});
  const auto q4o = q4o_summary(dir, "q4o", {"--q4-format", "q4o"});
  ASSERT_TRUE(q4o.contains("q4_storage"));
  EXPECT_EQ(q4o["q4_storage"]["format"], "q4o");
  EXPECT_EQ(q4o["q4_storage"]["q4o_channels"], 4);
  EXPECT_EQ(q4o["q4_storage"]["block_payload_bytes"], 4096);
  EXPECT_EQ(q4o["q4_storage"]["block_side_bytes"], 1024 + 304);
  EXPECT_GT(q4o["peak_bytes_per_level"]["q4"].get<double>(), 0);
  EXPECT_LT(q4o["attention_error_exposure"].get<double>(), 0.5 * q4["attention_error_exposure"].get<double>());
  EXPECT_GT(q4o["peak_scale_bytes"].get<double>(), q4["peak_scale_bytes"].get<double>());
  // Fewer channels, less side table and more error than 4; the text summary says what a block holds.
  const auto two = q4o_summary(dir, "two", {"--q4-format", "q4o", "--q4o-channels", "2"});
  EXPECT_EQ(two["q4_storage"]["block_side_bytes"], 1024 + 4 * (2 * 3 + 16 * 2));
  EXPECT_GT(two["attention_error_exposure"].get<double>(), q4o["attention_error_exposure"].get<double>());
  const auto r = run_process(q4o_simulate({"--q4-format", "q4o"}));
  EXPECT_NE(r.out.find("q4 storage      q4o, 4 key channels"), std::string::npos) << r.out;
  EXPECT_EQ(run_process(q4o_simulate({})).out.find("q4 storage"), std::string::npos);
}

// The session records the format, and its replay stores q4o again: the same metrics, step for step.
TEST(CliQ4o, SessionRecordsTheFormatAndReplaysIt) {
  temp_dir dir;
  auto argv = q4o_simulate({"--q4-format", "q4o", "--q4o-channels", "3", "--payload", "data", "--metrics",
                            dir.file("run.csv"), "--session", dir.file("run.session.json"), "--quiet"});
  ASSERT_EQ(run_process(argv).exit_code, 0);
  const auto session = nlohmann::json::parse(read_text(dir.file("run.session.json")));
  EXPECT_EQ(session["options"]["q4_format"], "q4o");
  EXPECT_EQ(session["options"]["q4o_channels"], 3);
  const auto r = run_process({cli_path(), "replay", "--session", dir.file("run.session.json"), "--metrics",
                              dir.file("replay.csv"), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(dir.file("replay.csv")), read_text(dir.file("run.csv")));
  // A default run's session does not name it.
  ASSERT_EQ(run_process(q4o_simulate({"--session", dir.file("plain.session.json"), "--quiet"})).exit_code, 0);
  const auto plain = read_text(dir.file("plain.session.json"));
  EXPECT_EQ(plain.find("q4_format"), std::string::npos);
  EXPECT_EQ(plain.find("q4o_channels"), std::string::npos);
}

TEST(CliQ4o, BadValuesExitTwoNamingTheFlag) {
  auto r = run_process(q4o_simulate({"--q4-format", "q5"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--q4-format: expected one of q4, q4o, got 'q5'"), std::string::npos) << r.err;
  r = run_process(q4o_simulate({"--q4o-channels", "17"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--q4o-channels: expected a whole number in [0, 16], got 17"), std::string::npos) << r.err;
  // A model whose heads q4o cannot index (head_dim 4096 / 8 = 512).
  temp_dir dir;
  write_text(dir.file("wide.json"), R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 4096, "intermediate_size": 1024, "num_attention_heads": 8, "num_hidden_layers": 2,
    "num_key_value_heads": 2, "vocab_size": 1000, "max_position_embeddings": 2048,
    "torch_dtype": "bfloat16"})");
  r = run_process({cli_path(), "simulate", "--load", small_load, "--model", dir.file("wide.json"), "--budget",
                   "64MiB", "--q4-format", "q4o"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--q4-format: q4o stores keys of head_dim up to 256 (one-byte channel indices); wide has 512"), std::string::npos) << r.err;
  EXPECT_EQ(run_process({cli_path(), "simulate", "--load", small_load, "--model", dir.file("wide.json"),
                         "--budget", "64MiB", "--quiet"})
                .exit_code,
            0);
}

}  // namespace
}  // namespace kvscope::test
