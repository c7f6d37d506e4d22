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

}  // namespace
}  // namespace kvscope
