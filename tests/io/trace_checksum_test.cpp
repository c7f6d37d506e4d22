// Sessions record the SHA-256 of their trace file, and a replay can tell whether it changed.
#include <gtest/gtest.h>

#include <filesystem>

#include "io/session_file.hpp"
#include "io/trace_checksum.hpp"
#include "process.hpp"
#include "temp_dir.hpp"
#include "util/sha256.hpp"

namespace kvscope {
namespace {

using test::read_text;

constexpr const char* trace_text =
    "arrival_time,num_prefill_tokens,num_decode_tokens\n0.0,100,10\n0.5,200,20\n";

TEST(TraceChecksum, LoadFileOfNamesTheFileASpecReads) {
  EXPECT_EQ(load_file_of("gen:rate=1,count=2"), "");
  EXPECT_EQ(load_file_of("bench:r.json"), "r.json");
  EXPECT_EQ(load_file_of("t.csv"), "t.csv");
}

// A run of a small trace file in a fresh folder.
class TraceChecksumFile : public ::testing::Test {
 protected:
  TraceChecksumFile() : trace(dir.file("t.csv")) {
    test::write_text(trace, trace_text);
    s.load_spec = trace;
  }
  test::temp_dir dir;
  std::string trace;
  run_description s;
};

TEST_F(TraceChecksumFile, WriteSessionRecordsTheTraceDigestAndReadsItBack) {
  ASSERT_TRUE(write_session(dir.file("s.json"), s).has_value());
  const auto text = read_text(dir.file("s.json"));
  EXPECT_NE(text.find("\"trace_sha256\": \"" + sha256_hex(trace_text) + "\""), std::string::npos) << text;
  const auto back = read_session(dir.file("s.json"));
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(back->trace_sha256, sha256_hex(trace_text));
  EXPECT_EQ(check_trace_checksum(*back, "s.json").result, trace_check_result::matches);
}

TEST_F(TraceChecksumFile, OneChangedValueIsADifferenceNamingSessionTraceAndBothDigests) {
  s.trace_sha256 = sha256_hex(trace_text);
  std::string changed = trace_text;
  changed[changed.find("200")] = '3';
  test::write_text(trace, changed);
  const auto check = check_trace_checksum(s, "s.json");
  EXPECT_EQ(check.result, trace_check_result::differs);
  EXPECT_EQ(check.message, "s.json: trace " + trace +
                               " has changed since the session was recorded: sha256 " +
                               sha256_hex(trace_text) + " recorded, " + sha256_hex(changed) + " now");
}

TEST(TraceChecksum, GeneratedLoadsHaveNoDigestAndTheirSessionsNoKey) {
  run_description s;
  s.load_spec = "gen:rate=1,count=2";
  test::temp_dir dir;
  ASSERT_TRUE(write_session(dir.file("s.json"), s).has_value());
  EXPECT_EQ(read_text(dir.file("s.json")), session_to_json(s));
  EXPECT_EQ(read_text(dir.file("s.json")).find("sha256"), std::string::npos);
  EXPECT_EQ(check_trace_checksum(s, "s.json").result, trace_check_result::generated);
}

TEST_F(TraceChecksumFile, SessionsWithoutTheFieldAreReadAndNotChecked) {
  const std::string old = "{\"kvscope_session\": 2, \"load\": {\"spec\": \"" + trace + "\"}}";
  const auto old_run = session_from_json(old, "old.json");
  ASSERT_TRUE(old_run.has_value()) << old_run.error();
  const auto check = check_trace_checksum(*old_run, "old.json");
  EXPECT_EQ(check.result, trace_check_result::unrecorded);
  EXPECT_EQ(check.message, "old.json: trace " + trace +
                               ": the session records no checksum of it (written by an older kvscope); "
                               "not checked");
}

TEST(TraceChecksum, AMalformedDigestIsRefusedNamingTheField) {
  const auto s = session_from_json(
      R"({"kvscope_session": 2, "load": {"spec": "t.csv", "trace_sha256": "ABC"}})", "s.json");
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error(), "s.json: field 'load.trace_sha256': expected 64 lowercase hexadecimal digits");
}

TEST(TraceChecksum, AnUnreadableTraceIsAnErrorWhenWritingTheSession) {
  test::temp_dir dir;
  run_description s;
  s.load_spec = dir.file("missing.csv");
  const auto r = write_session(dir.file("s.json"), s);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), dir.file("missing.csv") + ": cannot open file");
}

TEST(InputChecksums, ModelAndGpuFilesAreRecordedAndCheckedBuiltInsNot) {
  test::temp_dir dir;
  run_description s;
  s.load_spec = "gen:rate=1,count=2";
  s.options.model = dir.file("m.json");
  s.options.gpu = "h100";
  const std::string config = test::read_text(test::data_path("../../resources/models/tiny.json"));
  test::write_text(s.options.model, config);
  ASSERT_TRUE(write_session(dir.file("s.json"), s).has_value());
  const auto back = read_session(dir.file("s.json"));
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(back->model_sha256, sha256_hex(config));
  EXPECT_EQ(back->gpu_sha256, "");
  EXPECT_EQ(check_input_checksums(*back, "s.json").size(), 0u);
  test::write_text(s.options.model, config + " ");
  const auto checks = check_input_checksums(*back, "s.json");
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].result, trace_check_result::differs);
  EXPECT_EQ(checks[0].message, "s.json: model file " + s.options.model +
                                   " has changed since the session was recorded: sha256 " + sha256_hex(config) +
                                   " recorded, " + sha256_hex(config + " ") + " now");
}

TEST(InputChecksums, AMalformedModelDigestIsRefusedNamingTheField) {
  const auto s = session_from_json(
      R"({"kvscope_session": 3, "load": {"spec": "gen:count=1"}, "files": {"model_sha256": "x"}})", "s.json");
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error(), "s.json: field 'files.model_sha256': expected 64 lowercase hexadecimal digits");
}

// A path relative to the working directory is written relative to the session's folder, and read
// back from there; an absolute one stays as it is.
TEST_F(TraceChecksumFile, RelativePathsAreTheSessionFoldersAbsoluteOnesStay) {
  std::filesystem::create_directory(dir.file("sub"));
  const auto session = dir.file("sub/s.json");
  s.load_spec = std::filesystem::relative(trace).string();
  ASSERT_TRUE(std::filesystem::path(s.load_spec).is_relative());
  ASSERT_TRUE(write_session(session, s).has_value());
  EXPECT_NE(read_text(session).find("\"spec\": \"../t.csv\""), std::string::npos) << read_text(session);
  auto back = read_session(session);
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(back->load_spec, (std::filesystem::path(dir.file("sub")) / "../t.csv").string());
  EXPECT_EQ(check_trace_checksum(*back, session).result, trace_check_result::matches);

  s.load_spec = "bench:" + trace;
  ASSERT_TRUE(write_session(session, s).has_value());
  back = read_session(session);
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(back->load_spec, "bench:" + trace);
}

}  // namespace
}  // namespace kvscope
