// `replay` refuses a session whose trace, model or GPU file changed since it was recorded (exit 2,
// naming the session, the file and both checksums) unless --force, which warns and runs. The
// session names those files from its own folder, so a replay from anywhere finds them.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "process.hpp"
#include "temp_dir.hpp"
#include "util/sha256.hpp"

namespace kvscope::test {
namespace {

class CliReplayChecksum : public ::testing::Test {
 protected:
  CliReplayChecksum() {
    trace = dir.file("trace.csv");
    original = read_text(data_path("vidur_sample.csv"));
    write_text(trace, original);
    session = dir.file("s.json");
    const auto r = run_process({cli_path(), "simulate", "--load", trace, "--model", "tiny", "--budget",
                                "4MiB", "--quiet", "--session", session});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }

  process_result replay(std::vector<std::string> extra = {}) {
    std::vector<std::string> argv{cli_path(), "replay", "--session", session, "--summary-json", "-"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_process(argv);
  }

  // The trace with one digit of one value changed: same shape, different numbers.
  std::string changed() const {
    std::string text = original;
    const auto pos = text.find(",1536,");
    EXPECT_NE(pos, std::string::npos);
    text.replace(pos, 6, ",1537,");
    return text;
  }

  temp_dir dir;
  std::string trace, original, session;
};

TEST_F(CliReplayChecksum, TheSessionRecordsTheTracesSha256) {
  const auto j = nlohmann::json::parse(read_text(session));
  EXPECT_EQ(j["load"]["trace_sha256"], sha256_hex(original));
  const auto r = replay();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST_F(CliReplayChecksum, AChangedTraceIsRefusedWithExitTwo) {
  const auto edited = changed();
  write_text(trace, edited);
  const auto r = replay();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "kvscope-cli: " + session + ": trace " + trace +
                       " has changed since the session was recorded: sha256 " + sha256_hex(original) +
                       " recorded, " + sha256_hex(edited) + " now (--force replays it anyway)\n");
}

TEST_F(CliReplayChecksum, ForceWarnsAndRuns) {
  const auto edited = changed();
  write_text(trace, edited);
  const auto r = replay({"--force"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "kvscope-cli: warning: " + session + ": trace " + trace +
                       " has changed since the session was recorded: sha256 " + sha256_hex(original) +
                       " recorded, " + sha256_hex(edited) + " now; replaying anyway (--force)\n");
  EXPECT_TRUE(nlohmann::json::parse(r.out).contains("steps"));
}

TEST_F(CliReplayChecksum, ASessionWithoutTheFieldReplaysWithANote) {
  auto j = nlohmann::ordered_json::parse(read_text(session));
  j["load"].erase("trace_sha256");
  write_text(session, j.dump(2));
  const auto r = replay();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "kvscope-cli: note: " + session + ": trace " + trace +
                       ": the session records no checksum of it (written by an older kvscope); not checked\n");
}

TEST(CliReplayGenerated, SessionsOfGeneratedLoadsHaveNoChecksum) {
  temp_dir dir;
  const auto session = dir.file("s.json");
  const auto a = run_process({cli_path(), "simulate", "--load", "gen:rate=20,count=10,seed=1", "--model",
                              "tiny", "--budget", "4MiB", "--quiet", "--session", session});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(read_text(session).find("sha256"), std::string::npos);
  const auto r = run_process({cli_path(), "replay", "--session", session, "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// A run whose model and GPU are .json files (copies of the built-ins) in a fresh folder.
class CliReplayModelFiles : public ::testing::Test {
 protected:
  CliReplayModelFiles() {
    model = dir.file("model.json");
    gpu = dir.file("gpu.json");
    write_text(model, read_text(data_path("../../resources/models/tiny.json")));
    write_text(gpu, read_text(data_path("../../resources/gpus/h100.json")));
    session = dir.file("s.json");
    const auto r = run_process({cli_path(), "simulate", "--load", "gen:rate=20,count=10,seed=1", "--model",
                                model, "--gpu", gpu, "--budget", "4MiB", "--quiet", "--session", session});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }

  std::string changed_message(const std::string& what, const std::string& file, const std::string& before) {
    return session + ": " + what + " " + file + " has changed since the session was recorded: sha256 " +
           sha256_hex(before) + " recorded, " + sha256_hex(read_text(file)) + " now";
  }

  temp_dir dir;
  std::string model, gpu, session;
};

TEST_F(CliReplayModelFiles, TheSessionRecordsTheirSha256) {
  const auto j = nlohmann::json::parse(read_text(session));
  EXPECT_EQ(j["files"]["model_sha256"], sha256_hex(read_text(model)));
  EXPECT_EQ(j["files"]["gpu_sha256"], sha256_hex(read_text(gpu)));
  const auto r = run_process({cli_path(), "replay", "--session", session, "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST_F(CliReplayModelFiles, ChangedFilesAreRefusedEachNamedWithBothChecksums) {
  const auto model_before = read_text(model), gpu_before = read_text(gpu);
  write_text(model, model_before + " ");
  write_text(gpu, gpu_before + " ");
  auto r = run_process({cli_path(), "replay", "--session", session, "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "kvscope-cli: " + changed_message("model file", model, model_before) +
                       " (--force replays it anyway)\nkvscope-cli: " +
                       changed_message("GPU file", gpu, gpu_before) + " (--force replays it anyway)\n");
  r = run_process({cli_path(), "replay", "--session", session, "--quiet", "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "kvscope-cli: warning: " + changed_message("model file", model, model_before) +
                       "; replaying anyway (--force)\nkvscope-cli: warning: " +
                       changed_message("GPU file", gpu, gpu_before) + "; replaying anyway (--force)\n");
}

// Runs the CLI with `args` in the working directory `cwd`.
process_result run_in(const std::string& cwd, std::vector<std::string> args) {
  std::vector<std::string> argv{"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", cwd, cli_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

// A summary's figures, without the wall-clock ones that differ between any two runs and the
// file names (as each working directory spells them).
nlohmann::json figures(const std::string& summary_json) {
  auto j = nlohmann::json::parse(summary_json);
  j.erase("load");
  j.erase("model");
  j.erase("wall_seconds");
  j.erase("decode_token_steps_per_s");
  return j;
}

TEST(CliReplayElsewhere, TheSessionNamesItsFilesFromItsOwnFolder) {
  temp_dir dir;
  write_text(dir.file("trace.csv"), read_text(data_path("vidur_sample.csv")));
  write_text(dir.file("model.json"), read_text(data_path("../../resources/models/tiny.json")));
  std::filesystem::create_directory(dir.file("out"));
  const auto a = run_in(dir.path().string(), {"simulate", "--load", "trace.csv", "--model", "model.json",
                                               "--budget", "4MiB", "--summary-json", "-",
                                               "--session", "out/s.json"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto j = nlohmann::json::parse(read_text(dir.file("out/s.json")));
  EXPECT_EQ(j["kvscope_session"], 3);
  EXPECT_EQ(j["load"]["spec"], "../trace.csv");
  EXPECT_EQ(j["options"]["model"], "../model.json");
  for (const std::string& cwd : {std::string("/"), dir.file("out")}) {
    SCOPED_TRACE(cwd);
    const auto session = cwd == "/" ? dir.file("out/s.json") : "s.json";
    const auto b = run_in(cwd, {"replay", "--session", session, "--summary-json", "-"});
    EXPECT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(b.err, "");
    if (b.exit_code == 0) {
      EXPECT_EQ(figures(b.out), figures(a.out));
    }
  }
}

// Version 2 named files from the working directory it was written in; they are read so still.
TEST(CliReplayElsewhere, AVersionTwoSessionStillReadsPathsFromTheWorkingDirectory) {
  temp_dir dir;
  write_text(dir.file("trace.csv"), read_text(data_path("vidur_sample.csv")));
  std::filesystem::create_directory(dir.file("out"));
  write_text(dir.file("out/s.json"),
             R"({"kvscope_session": 2, "load": {"spec": "trace.csv"}, "options": {"model": "tiny",
                 "budget_bytes": 4194304}})");
  const auto r = run_in(dir.path().string(), {"replay", "--session", "out/s.json", "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "kvscope-cli: note: out/s.json: trace trace.csv: the session records no checksum of "
                   "it (written by an older kvscope); not checked\n");
}

}  // namespace
}  // namespace kvscope::test
