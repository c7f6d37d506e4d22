#pragma once
// Per-step metrics as CSV, streamed to a temporary file and renamed into place on finish(), so
// a crashed or interrupted run never leaves a half-written file under the real name.
#include <cstdio>
#include <filesystem>
#include <string>

#include "engine/step_metrics.hpp"
#include "util/expected.hpp"

namespace kvscope {

// The header line (no newline): step,sim_time_s,kv_cache_usage_perc,…
std::string metrics_csv_header();
// One row (no newline); doubles in shortest round-trip form, so equal rows mean equal bits.
std::string metrics_csv_row(const step_metrics& m);

class metrics_csv_writer {
 public:
  metrics_csv_writer() = default;
  ~metrics_csv_writer();  // discards the temporary file unless finish() succeeded
  metrics_csv_writer(const metrics_csv_writer&) = delete;
  metrics_csv_writer& operator=(const metrics_csv_writer&) = delete;

  // Starts writing `path` (through a temporary beside it) and writes the header.
  expected<void, std::string> open(const std::filesystem::path& path);
  bool is_open() const noexcept { return file_ != nullptr; }
  // Precondition: is_open().
  void write(const step_metrics& m);
  // Flushes, syncs and renames into place. Returns a message naming the path on failure.
  expected<void, std::string> finish();

 private:
  std::filesystem::path path_;
  std::filesystem::path temp_;
  std::FILE* file_ = nullptr;
};

}  // namespace kvscope
