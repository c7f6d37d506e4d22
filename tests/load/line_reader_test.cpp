// Chunked line reading: line ends, the last line, long lines, and the bound on line length.
#include <gtest/gtest.h>

#include <fstream>

#include "load/line_reader.hpp"
#include "load/load_error.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

std::vector<std::string> lines_of(line_reader& reader) {
  std::vector<std::string> out;
  std::string_view line;
  while (reader.next(line)) {
    EXPECT_GE(reader.capacity_from(line), line.size() + line_reader::padding);
    out.emplace_back(line);
  }
  return out;
}

TEST(LineReader, CrlfBomAndNoFinalNewline) {
  line_reader reader("m", "\xEF\xBB\xBFh1\r\na\n\nb");
  EXPECT_EQ(lines_of(reader), (std::vector<std::string>{"h1", "a", "", "b"}));
  EXPECT_EQ(reader.line_number(), 4u);
  EXPECT_EQ(reader.bytes_consumed(), reader.total_bytes());
  reader.restart();
  EXPECT_EQ(lines_of(reader).size(), 4u);
}

TEST(LineReader, LinesLongerThanOneChunkFromAFile) {
  test::temp_dir dir;
  const std::string big(3 << 20, 'x');  // three times the 1 MiB chunk
  test::write_text(dir.file("f"), "first\n" + big + "\nlast");
  line_reader reader(std::filesystem::path(dir.file("f")));
  const auto lines = lines_of(reader);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1], big);
  EXPECT_EQ(lines[2], "last");
  EXPECT_EQ(reader.bytes_consumed(), reader.total_bytes());
  reader.restart();
  std::string_view line;
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line, "first");
}

TEST(LineReader, ManyShortLinesAcrossChunkBoundaries) {
  test::temp_dir dir;
  std::string text;
  for (int i = 0; i < 300000; ++i) text += std::to_string(i) + "\n";
  test::write_text(dir.file("f"), text);
  line_reader reader(std::filesystem::path(dir.file("f")));
  std::string_view line;
  for (int i = 0; i < 300000; ++i) {
    ASSERT_TRUE(reader.next(line));
    ASSERT_EQ(line, std::to_string(i));
  }
  EXPECT_FALSE(reader.next(line));
}

TEST(LineReader, AnOverlongLineIsAnErrorNotUnboundedMemory) {
  test::temp_dir dir;
  {
    std::ofstream out(dir.file("f"), std::ios::binary);
    out << "ok\n" << std::string(line_reader::max_line_bytes + 10, 'z');
  }
  line_reader reader(std::filesystem::path(dir.file("f")));
  std::string_view line;
  ASSERT_TRUE(reader.next(line));
  try {
    reader.next(line);
    FAIL();
  } catch (const load_error& e) {
    EXPECT_EQ(std::string(e.what()), dir.file("f") + ":2: line longer than 16 MiB (is this a text trace?)");
  }
}

}  // namespace
}  // namespace kvscope
