#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "temp_dir.hpp"
#include "util/atomic_write.hpp"

namespace kvscope {
namespace {

TEST(AtomicWrite, ReplacesWholeFileAndLeavesNoTemporaries) {
  test::temp_dir dir;
  const auto path = dir.file("out.txt");
  test::write_text(path, "old content that is longer");
  ASSERT_TRUE(write_file_atomically(path, "new").has_value());
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "new");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(AtomicWrite, FailureNamesThePathAndCreatesNothing) {
  test::temp_dir dir;
  const auto path = dir.file("no-such-dir/out.txt");
  const auto r = write_file_atomically(path, "x");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().rfind(path + ": cannot create temporary file", 0), 0u) << r.error();
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace kvscope
