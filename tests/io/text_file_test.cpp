// Whole-file reads: a directory is named as one.
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace kvscope
