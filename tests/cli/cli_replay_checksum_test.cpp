// `replay` refuses a session whose trace file changed since it was recorded (exit 2, naming the
// session, the trace and both checksums) unless --force, which warns and runs.
#include <gtest/gtest.h>


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

}  // namespace
}  // namespace kvscope::test
