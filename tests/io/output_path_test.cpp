// The atomic writer writes through symbolic links and never replaces what is not a regular
// file; check_output_path and same_file let the CLI refuse bad outputs before any work.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <iterator>

#include "temp_dir.hpp"
#include "util/atomic_write.hpp"
#include "util/output_path.hpp"

namespace kvscope {
namespace {

namespace fs = std::filesystem;
using test::temp_dir;
using test::write_text;

using test::entries_in;
using test::read_text;

// A listening-free Unix socket file at `path` (kept until the test's temp_dir goes).
void make_socket(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << path;
  ::close(fd);
}

TEST(AtomicWriteLinks, WritesThroughALinkAndKeepsIt) {
  temp_dir dir;
  fs::create_directory(dir.path() / "real");
  write_text(dir.file("real/out.txt"), "old");
  fs::create_symlink("real/out.txt", dir.path() / "link.txt");  // relative to the link's folder
  fs::create_symlink(dir.path() / "link.txt", dir.path() / "link2.txt");  // a chain, absolute
  ASSERT_TRUE(write_file_atomically(dir.file("link2.txt"), "new").has_value());
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link2.txt"));
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link.txt"));
  EXPECT_EQ(read_text(dir.file("real/out.txt")), "new");
  EXPECT_EQ(entries_in(dir.path()), 3);         // real/, link.txt, link2.txt
  EXPECT_EQ(entries_in(dir.path() / "real"), 1);  // no temporary left beside the target
}

TEST(AtomicWriteLinks, DanglingLinkGetsItsTargetCreated) {
  temp_dir dir;
  fs::create_symlink("made.txt", dir.path() / "link.txt");
  ASSERT_TRUE(write_file_atomically(dir.file("link.txt"), "fresh").has_value());
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link.txt"));
  EXPECT_EQ(read_text(dir.file("made.txt")), "fresh");
}

TEST(AtomicWriteLinks, LinkLoopIsAnError) {
  temp_dir dir;
  fs::create_symlink("b", dir.path() / "a");
  fs::create_symlink("a", dir.path() / "b");
  const auto r = write_file_atomically(dir.file("a"), "x");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), dir.file("a") + ": more than 40 symbolic links (a loop?)");
  EXPECT_TRUE(fs::is_symlink(dir.path() / "a"));
}

TEST(AtomicWriteLinks, ReplacedFileKeepsItsPermissions) {
  temp_dir dir;
  const auto path = dir.file("secret.txt");
  write_text(path, "old");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  ASSERT_TRUE(write_file_atomically(path, "new").has_value());
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST(AtomicWriteSpecial, NonRegularTargetsAreRefusedAndKept) {
  temp_dir dir;
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0644), 0);
  fs::create_directory(dir.path() / "folder");
  make_socket(dir.file("sock"));
  fs::create_symlink("fifo", dir.path() / "fifo-link");
  const std::pair<std::string, std::string> cases[] = {
      {dir.file("fifo"), dir.file("fifo") + ": is a FIFO"},
      {dir.file("folder"), dir.file("folder") + ": is a directory"},
      {dir.file("sock"), dir.file("sock") + ": is a socket"},
      {dir.file("fifo-link"), dir.file("fifo-link") + " (a link to " + dir.file("fifo") +
                                  "): is a FIFO"},
  };
  for (const auto& [path, start] : cases) {
    SCOPED_TRACE(path);
    const auto r = write_file_atomically(path, "x");
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error(), start + ", not a regular file; refusing to replace it");
    const auto checked = check_output_path(path);
    ASSERT_FALSE(checked.has_value());
    EXPECT_EQ(checked.error(), r.error());
  }
  EXPECT_TRUE(fs::is_fifo(dir.path() / "fifo"));
  EXPECT_TRUE(fs::is_directory(dir.path() / "folder"));
  EXPECT_TRUE(fs::is_socket(dir.path() / "sock"));
  EXPECT_EQ(entries_in(dir.path()), 4);  // no temporaries
  // Devices only through the check, which writes nothing: a writer that regressed would try to
  // replace the system's /dev/null.
  const auto device = check_output_path("/dev/null");
  ASSERT_FALSE(device.has_value());
  EXPECT_EQ(device.error(),
            "/dev/null: is a character device, not a regular file; refusing to replace it");
}

TEST(AtomicWriteSpecial, TargetTurnedIntoAFifoBeforeCommitIsKept) {
  temp_dir dir;
  const auto path = dir.file("out.txt");
  atomic_file file;
  ASSERT_TRUE(file.open(path).has_value());
  ASSERT_TRUE(file.write("data").has_value());
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
  const auto r = file.commit();
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), path + ": is a FIFO, not a regular file; refusing to replace it");
  EXPECT_TRUE(fs::is_fifo(path));
  EXPECT_EQ(entries_in(dir.path()), 1);
}

TEST(CheckOutputPath, AcceptsNewFilesRegularFilesAndLinksToThem) {
  temp_dir dir;
  write_text(dir.file("old.txt"), "x");
  fs::create_symlink("old.txt", dir.path() / "link.txt");
  for (const auto& path : {dir.file("new.txt"), dir.file("old.txt"), dir.file("link.txt")}) {
    const auto r = check_output_path(path);
    EXPECT_TRUE(r.has_value()) << r.error();
  }
  EXPECT_EQ(read_text(dir.file("old.txt")), "x");
  EXPECT_EQ(entries_in(dir.path()), 2);  // checking writes nothing
}

TEST(CheckOutputPath, RefusesMissingOrFileFolders) {
  temp_dir dir;
  write_text(dir.file("plain"), "x");
  const auto missing = dir.file("nope/out.csv");
  auto r = check_output_path(missing);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), missing + ": folder '" + dir.file("nope") + "' does not exist");
  const auto under_file = dir.file("plain/out.csv");
  r = check_output_path(under_file);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), under_file + ": '" + dir.file("plain") + "' is not a folder");
  r = check_output_path("");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), "empty output path");
}

TEST(SameFile, ComparesFilesNotNames) {
  temp_dir dir;
  write_text(dir.file("a.txt"), "same text");
  write_text(dir.file("b.txt"), "same text");
  fs::create_symlink("a.txt", dir.path() / "link.txt");
  fs::create_hard_link(dir.path() / "a.txt", dir.path() / "hard.txt");
  EXPECT_TRUE(same_file(dir.file("a.txt"), dir.file("a.txt")));
  EXPECT_TRUE(same_file(dir.file("a.txt"), dir.path() / "." / "a.txt"));
  EXPECT_TRUE(same_file(dir.file("a.txt"), dir.file("link.txt")));
  EXPECT_TRUE(same_file(dir.file("hard.txt"), dir.file("link.txt")));
  EXPECT_FALSE(same_file(dir.file("a.txt"), dir.file("b.txt")));
  EXPECT_FALSE(same_file(dir.file("a.txt"), dir.file("absent.txt")));
  EXPECT_FALSE(same_file(dir.file("absent.txt"), dir.file("absent.txt")));
}

}  // namespace
}  // namespace kvscope
