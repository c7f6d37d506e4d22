#pragma once
// The per-request CSV (`--requests FILE.csv`): one row per request as it finishes or is
// rejected (outcome/requests_csv.hpp), streamed to a temporary file and renamed into place on
// finish(), so an interrupted run leaves no half-written file under the real name.
#include <filesystem>
#include <string>

#include "outcome/request_record.hpp"
#include "util/atomic_write.hpp"
#include "util/expected.hpp"

namespace kvscope {

class requests_csv_writer {
 public:
  // Starts writing `path` and writes the header.
  expected<void, std::string> open(const std::filesystem::path& path);
  bool is_open() const noexcept { return file_.is_open(); }
  // Precondition: is_open(). A write error is kept and reported by finish().
  void write(const request_record& r);
  // Flushes, syncs and renames into place; a message naming the path on failure.
  expected<void, std::string> finish();

 private:
  atomic_file file_;
  std::string buffer_;
  expected<void, std::string> error_{};
};

}  // namespace kvscope
