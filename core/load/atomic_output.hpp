#pragma once
// A file written in pieces that appears all at once: a temp file next to the target, fsync, then
// rename (util/write_file_atomically needs the whole content in memory; a recorded load may not fit).
#include <filesystem>
#include <string_view>

namespace kvscope {

class atomic_output_file {
 public:
  // Creates the temp file; throws load_error (io_failure) naming `target` when it cannot.
  explicit atomic_output_file(std::filesystem::path target);
  // Removes the temp file unless commit() succeeded: the target is then untouched.
  ~atomic_output_file();
  atomic_output_file(const atomic_output_file&) = delete;
  atomic_output_file& operator=(const atomic_output_file&) = delete;

  // Appends bytes; throws load_error (io_failure) on a write error.
  void write(std::string_view bytes);
  // Flushes to disk and renames over the target; throws load_error (io_failure) on failure.
  void commit();

  const std::filesystem::path& target() const noexcept { return target_; }

 private:
  std::filesystem::path target_, temp_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace kvscope
