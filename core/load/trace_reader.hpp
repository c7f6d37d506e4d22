#pragma once
// What every trace reader shares: pulling lines, the bad-row policy (refuse or skip and count),
// the time checks (monotonic within a tolerance) and times relative to the first request.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "load/line_reader.hpp"
#include "load/request_source.hpp"

namespace kvscope {

class trace_reader : public request_source {
 public:
  bool next(request& out) final;
  double progress() const noexcept final;
  std::uint64_t bytes_read() const noexcept final { return lines_->bytes_consumed(); }

 protected:
  enum class row_status { ok, bad, failed_request };

  // `keep_ids`: requests keep the id the row gives (native files) instead of 0, 1, 2, ...
  trace_reader(std::unique_ptr<line_reader> lines, const read_options& options, bool keep_ids);

  // Parses one non-blank data line into `out`, with out.arrival_s in seconds on the trace's own
  // clock (any origin). On a bad row, returns bad and sets `why` (no file:line prefix).
  virtual row_status parse_row(std::string_view line, request& out, std::string& why) = 0;

  // The names of the output length's and the arrival time's fields in this format, for messages.
  virtual std::string output_field() const = 0;
  virtual std::string time_field() const = 0;

  // For headers: a problem with the file as a whole at the current line, never skipped.
  [[noreturn]] void refuse(const std::string& why) const;

  line_reader& lines() noexcept { return *lines_; }

 private:
  void bad_row(const std::string& why);

  std::unique_ptr<line_reader> lines_;
  read_options options_;
  bool keep_ids_;
  bool have_origin_ = false;
  bool finished_ = false;
  double origin_s_ = 0;
  double last_s_ = 0;
  std::string why_;
};

}  // namespace kvscope
