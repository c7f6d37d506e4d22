#pragma once
// A load as a stream: the engine pulls requests as simulated time advances, so generators and
// trace readers alike hand out one request at a time in constant memory.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "load/request.hpp"

namespace kvscope {

// How a reader treats rows it cannot use.
struct read_options {
  // false: the first bad row refuses the whole load (load_error). true: bad rows are skipped,
  // counted and their first messages kept; nothing is dropped without a trace.
  bool skip_bad_rows = false;
  // A row may be earlier than the latest one before it by at most this much (logging jitter); it
  // is then moved up to that latest time and counted in clamped_times. Further back is a bad row.
  double time_tolerance_s = 0.001;
};

// What a source has seen so far (complete once next() has returned false).
struct load_counters {
  static constexpr std::size_t max_kept_messages = 10;

  std::uint64_t rows = 0;             // data rows read (not the header, not blank lines)
  std::uint64_t requests = 0;         // requests handed out
  std::uint64_t bad_rows = 0;         // malformed rows skipped (only with skip_bad_rows)
  std::uint64_t failed_requests = 0;  // rows the trace marks as failed (BurstGPT: 0 response tokens)
  std::uint64_t clamped_times = 0;    // rows moved up to the previous time (within tolerance)
  std::vector<std::string> bad_row_messages;  // "file:line: why" of the first skipped bad rows

  std::uint64_t skipped_rows() const noexcept { return bad_rows + failed_requests; }
};

class request_source {
 public:
  virtual ~request_source() = default;
  request_source() = default;
  request_source(const request_source&) = delete;
  request_source& operator=(const request_source&) = delete;

  // Writes the next request into `out` (reusing its storage) and returns true; false at the end.
  // Throws load_error on bad input (unless skipped) or an I/O failure.
  virtual bool next(request& out) = 0;

  // Fraction of the load consumed so far, in [0, 1] (bytes for files, time or count for generators).
  virtual double progress() const noexcept = 0;

  // Short name of the format: "gen", "azure", "burstgpt", "mooncake", "vidur", "native".
  virtual std::string_view format_name() const noexcept = 0;

  // Requests the load's clients keep in flight at most (a closed loop: each sends its next
  // request when its previous one completes); 0 = an open loop, requests arrive on their own.
  virtual std::uint32_t client_concurrency() const noexcept { return 0; }

  // Bytes of input consumed so far (0 for generators): for MB/s figures.
  virtual std::uint64_t bytes_read() const noexcept { return 0; }

  // Counters so far.
  const load_counters& counters() const noexcept { return counters_; }

  // Convenience over next(request&): the next request, or nullopt at the end.
  std::optional<request> next_request();

 protected:
  load_counters counters_;
};

// Called now and then while a load is drained, for progress reports.
using progress_fn = std::function<void(const request_source&)>;

// Pulls every request through `visit`; calls `progress` every few tens of thousands of requests.
void for_each_request(request_source& source, const std::function<void(const request&)>& visit,
                      const progress_fn& progress = {});

// Every request in memory: for small loads and tests (a trace of millions of rows wants streaming).
std::vector<request> read_all(request_source& source);

}  // namespace kvscope
