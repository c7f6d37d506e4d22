#pragma once
// Per-step metrics as CSV, streamed to a temporary file and renamed into place on finish(), so
// a crashed or interrupted run never leaves a half-written file under the real name.
#include <filesystem>
#include <string>

#include "engine/step_metrics.hpp"
#include "util/atomic_write.hpp"
#include "util/expected.hpp"

namespace kvscope {

// The header line (no newline): step,sim_time_s,kv_cache_usage_perc,…
std::string metrics_csv_header();
// One row (no newline); doubles in shortest round-trip form, so equal rows mean equal bits.
std::string metrics_csv_row(const step_metrics& m);

class metrics_csv_writer {
 public:
  // Starts writing `path` (through a temporary beside it) and writes the header.
  expected<void, std::string> open(const std::filesystem::path& path);
  bool is_open() const noexcept { return file_.is_open(); }
  // Precondition: is_open(). A write error is kept and reported by finish().
  void write(const step_metrics& m);
  // Flushes, syncs and renames into place. Returns a message naming the path on failure;
  // the target is untouched then. A writer dropped before finish() leaves no file behind.
  expected<void, std::string> finish();

 private:
  atomic_file file_;
  std::string row_;
  expected<void, std::string> error_;  // the first write error, if any
};

}  // namespace kvscope
