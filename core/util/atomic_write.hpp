#pragma once
// Files that readers see either as they were or whole: written to a temporary file in the same
// directory, synced, then renamed over the target. Every writer of the project goes through
// here (configs, sessions, summaries, metrics CSV, recorded loads). Open temporaries are listed
// in util/temp_registry, so a program's SIGINT/SIGTERM handler can remove them.
// A target that is a symbolic link is written through: the file at the end of the link is
// replaced and the link stays. A target that is neither absent nor a regular file (a directory,
// FIFO, device, socket) is refused, never replaced (see output_path.hpp).
#include <filesystem>
#include <string>
#include <string_view>

#include "util/expected.hpp"

namespace kvscope {

// A file written in pieces (buffered) that appears all at once on commit(). Failures are
// messages naming the target; the target is untouched unless commit() succeeds.
class atomic_file {
 public:
  atomic_file() = default;
  ~atomic_file();  // removes the temporary file unless commit() succeeded
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;

  // Creates the temporary file beside `target` (beside the file it links to, for a link), with
  // the permissions of the file it will replace.
  expected<void, std::string> open(std::filesystem::path target);
  bool is_open() const noexcept { return fd_ >= 0; }
  // Appends bytes. Precondition: is_open().
  expected<void, std::string> write(std::string_view bytes);
  // Flushes, syncs and renames over the target; the file is closed either way.
  // Precondition: is_open().
  expected<void, std::string> commit();
  // Gives up: closes and removes the temporary file (nothing if not open).
  void discard();

  const std::filesystem::path& target() const noexcept { return target_; }

 private:
  expected<void, std::string> flush_buffer();

  // Removes the temporary file and forgets its registration.
  void remove_temporary() noexcept;

  std::filesystem::path target_, final_, temp_;  // as given, links resolved, temporary
  int fd_ = -1;
  int registered_ = -1;  // temp_'s slot in util/temp_registry, removed there on a fatal signal
  std::string buffer_;
};

// Writes `content` to `path` as one atomic_file.
expected<void, std::string> write_file_atomically(const std::filesystem::path& path,
                                                  std::string_view content);

}  // namespace kvscope
