// Whole-file reads and the text summary: a directory is named as one, and no line of the summary
// is cut however long the names in it.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "io/summary_format.hpp"
#include "temp_dir.hpp"
#include "util/text_file.hpp"

namespace kvscope {
namespace {

TEST(ReadTextFile, ADirectoryIsNamedNotReadAsAStream) {
  test::temp_dir dir;
  // Before: libstdc++'s filebuf threw "basic_filebuf::underflow error reading the file".
  const auto r = read_text_file(dir.path());
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), dir.path().string() + ": is a directory, not a file");
  EXPECT_EQ(read_text_file(dir.file("none")).error(), dir.file("none") + ": cannot open file");
  test::write_text(dir.file("f"), "a\nb");
  EXPECT_EQ(read_text_file(dir.file("f")).value(), "a\nb");
}

TEST(SummaryText, LongNamesDoNotCutALine) {
  run_summary s;
  s.model = std::string(300, 'm');
  s.load = std::string(400, 'l');
  s.gpu = std::string(300, 'g');
  const std::string text = summary_text(s);
  std::istringstream lines(text);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_TRUE(first.starts_with("model " + s.model + ", budget ")) << first.substr(0, 40);
  EXPECT_TRUE(first.ends_with(", load " + s.load));
  EXPECT_TRUE(second.starts_with("requests ")) << second.substr(0, 40);
  EXPECT_NE(text.find(" on " + s.gpu + "\n"), std::string::npos);
}

// Roofline times at tp > 1 rest on factors fitted on single-GPU servers: the summary says so,
// unless a calibration at that tp replaced them.
TEST(SummaryText, TensorParallelRooflineSaysItIsOptimistic) {
  run_summary s;
  s.gpu = "a100-80g";
  s.timing = "roofline";
  const std::string caveat = "tensor parallel: the step-time factors were fitted on single-GPU servers";
  EXPECT_EQ(summary_text(s).find(caveat), std::string::npos);  // tp 1
  s.tensor_parallel = 4;
  EXPECT_NE(summary_text(s).find(caveat), std::string::npos);
  calibration c;
  c.tensor_parallel = 4;
  EXPECT_EQ(summary_text(s, &c).find(caveat), std::string::npos);
  c.tensor_parallel = 1;
  EXPECT_NE(summary_text(s, &c).find(caveat), std::string::npos);
  EXPECT_NE(summary_json(s).find("\"timing_caveat\": \"" + caveat), std::string::npos);
  s.timing = "linear";
  EXPECT_EQ(summary_text(s).find(caveat), std::string::npos);
  EXPECT_EQ(summary_json(s).find("timing_caveat"), std::string::npos);
}

// vLLM 0.6's V0 sends tokens a step late, which the engine does not model: a V0 roofline run
// says so, with or without a calibration, after the tensor-parallel clause when both apply.
TEST(SummaryText, V0RooflineSaysTokensMayArriveAStepLater) {
  run_summary s;
  s.gpu = "a100-80g";
  s.timing = "roofline";
  const std::string caveat = "vLLM V0: from 0.6.0 a server sends each step's tokens during the next step";
  EXPECT_EQ(summary_text(s).find(caveat), std::string::npos);  // V1
  s.vllm_v0 = true;
  EXPECT_NE(summary_text(s).find(caveat), std::string::npos);
  calibration c;
  EXPECT_NE(summary_text(s, &c).find(caveat), std::string::npos);
  EXPECT_NE(summary_json(s).find("\"timing_caveat\": \"" + caveat), std::string::npos);
  s.tensor_parallel = 2;
  const std::string both = summary_json(s);
  EXPECT_NE(both.find("\"timing_caveat\": \"tensor parallel: "), std::string::npos);
  EXPECT_NE(both.find("; " + caveat), std::string::npos);
  s.timing = "linear";
  EXPECT_EQ(summary_json(s).find("timing_caveat"), std::string::npos);
}

}  // namespace
}  // namespace kvscope
