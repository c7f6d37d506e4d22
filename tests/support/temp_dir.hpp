#pragma once
#include <filesystem>
#include <string>

namespace kvscope::test {

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class temp_dir {
 public:
  temp_dir();
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Writes `content` to `path` (test setup helper; not atomic).
void write_text(const std::string& path, const std::string& content);
// A file's bytes ("" if it cannot be read).
std::string read_text(const std::string& path);
// How many entries `dir` holds (files, directories, links).
int entries_in(const std::filesystem::path& dir);

}  // namespace kvscope::test
