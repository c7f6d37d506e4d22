#include <gtest/gtest.h>

#include <filesystem>

#include "temp_dir.hpp"
#include "util/atomic_write.hpp"
#include "util/temp_registry.hpp"

namespace kvscope {
namespace {

using test::entries_in;
using test::read_text;

TEST(AtomicWrite, ReplacesWholeFileAndLeavesNoTemporaries) {
  test::temp_dir dir;
  const auto path = dir.file("out.txt");
  test::write_text(path, "old content that is longer");
  ASSERT_TRUE(write_file_atomically(path, "new").has_value());
  EXPECT_EQ(read_text(path), "new");
  EXPECT_EQ(entries_in(dir.path()), 1);
}

TEST(AtomicWrite, FailureNamesThePathAndCreatesNothing) {
  test::temp_dir dir;
  const auto path = dir.file("no-such-dir/out.txt");
  const auto r = write_file_atomically(path, "x");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().rfind(path + ": cannot create temporary file", 0), 0u) << r.error();
  EXPECT_FALSE(std::filesystem::exists(path));
}

// Pieces small and large (past the internal buffer) arrive in order, and only on commit.
TEST(AtomicFile, PiecesAppearWholeOnCommit) {
  test::temp_dir dir;
  const auto path = dir.file("rows.csv");
  test::write_text(path, "old");
  atomic_file file;
  ASSERT_TRUE(file.open(path).has_value());
  std::string expected_text;
  for (int i = 0; i < 5000; ++i) {
    const std::string row = "row " + std::to_string(i) + "\n";
    ASSERT_TRUE(file.write(row).has_value());
    expected_text += row;
  }
  const std::string big(200000, 'x');
  ASSERT_TRUE(file.write(big).has_value());
  expected_text += big;
  EXPECT_EQ(read_text(path), "old");  // nothing visible before the commit
  ASSERT_TRUE(file.commit().has_value());
  EXPECT_EQ(read_text(path), expected_text);
  EXPECT_EQ(entries_in(dir.path()), 1);
}

TEST(AtomicFile, DroppedBeforeCommitLeavesTheTargetAndNoTemporary) {
  test::temp_dir dir;
  const auto path = dir.file("out.txt");
  test::write_text(path, "kept");
  {
    atomic_file file;
    ASSERT_TRUE(file.open(path).has_value());
    ASSERT_TRUE(file.write(std::string(100000, 'y')).has_value());
  }
  EXPECT_EQ(read_text(path), "kept");
  EXPECT_EQ(entries_in(dir.path()), 1);
}

// An open writer's temporary is registered, so a signal handler can remove it (util/temp_registry).
TEST(TempRegistry, RemovesAnOpenWritersTemporaryAndNothingElse) {
  test::temp_dir dir;
  test::write_text(dir.file("kept.csv"), "old\n");
  atomic_file file;
  ASSERT_TRUE(file.open(dir.file("kept.csv")).has_value());
  ASSERT_TRUE(file.write("new\n").has_value());
  EXPECT_EQ(entries_in(dir.path()), 2);
  remove_live_temporaries();
  EXPECT_EQ(entries_in(dir.path()), 1);
  EXPECT_EQ(read_text(dir.file("kept.csv")), "old\n");
  file.discard();
}

TEST(TempRegistry, ACommittedFileIsNoLongerRegistered) {
  test::temp_dir dir;
  ASSERT_TRUE(write_file_atomically(dir.file("a.txt"), "a\n").has_value());
  remove_live_temporaries();
  EXPECT_EQ(read_text(dir.file("a.txt")), "a\n");
}

TEST(TempRegistry, SlotsAreReusedAndRunOutGracefully) {
  std::vector<int> slots;
  for (std::size_t i = 0; i < temp_registry_slots; ++i) slots.push_back(register_temporary("/nonexistent/x"));
  for (int s : slots) EXPECT_GE(s, 0);
  EXPECT_EQ(register_temporary("/nonexistent/y"), -1);
  for (int s : slots) unregister_temporary(s);
  const int again = register_temporary("/nonexistent/z");
  EXPECT_GE(again, 0);
  unregister_temporary(again);
}

}  // namespace
}  // namespace kvscope
