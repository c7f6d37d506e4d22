#include "load/trace_reader.hpp"

#include <cmath>
#include <cstdio>

#include "load/load_error.hpp"

namespace kvscope {
namespace {

bool blank(std::string_view line) noexcept {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

std::string seconds_text(double s) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g s", s);
  return buf;
}

}  // namespace

trace_reader::trace_reader(std::unique_ptr<line_reader> lines, const read_options& options,
                           bool keep_ids)
    : lines_(std::move(lines)), options_(options), keep_ids_(keep_ids) {}

void trace_reader::refuse(const std::string& why) const {
  throw load_error(load_error_kind::bad_input,
                   lines_->name() + ":" + std::to_string(lines_->line_number()) + ": " + why);
}

void trace_reader::bad_row(const std::string& why) {
  const std::string message =
      lines_->name() + ":" + std::to_string(lines_->line_number()) + ": " + why;
  if (!options_.skip_bad_rows) throw load_error(load_error_kind::bad_input, message, true);
  ++counters_.bad_rows;
  if (counters_.bad_row_messages.size() < load_counters::max_kept_messages) {
    counters_.bad_row_messages.push_back(message);
  }
}

bool trace_reader::next(request& out) {
  if (finished_) return false;
  std::string_view line;
  while (lines_->next(line)) {
    if (blank(line)) continue;
    ++counters_.rows;
    why_.clear();
    const row_status status = parse_row(line, out, why_);
    if (status == row_status::bad) {
      bad_row(why_);
      continue;
    }
    if (status == row_status::failed_request) {
      ++counters_.failed_requests;
      continue;
    }
    if (const std::uint64_t total = std::uint64_t{out.prompt_tokens} + out.output_tokens;
        total > max_request_tokens) {
      bad_row("field '" + output_field() + "': prompt + output = " + std::to_string(total) +
              " tokens, more than a request may hold (" + std::to_string(max_request_tokens) + ")");
      continue;
    }
    if (!std::isfinite(out.arrival_s)) {
      bad_row("time is not a finite number");
      continue;
    }
    if (!have_origin_) {
      have_origin_ = true;
      origin_s_ = out.arrival_s;
    }
    double t = out.arrival_s - origin_s_;
    if (!std::isfinite(t)) {
      bad_row("time is too far from the first request's");
      continue;
    }
    if (t >= max_arrival_s) {
      bad_row("field '" + time_field() + "': " + seconds_text(t) +
              " after the first request; " + max_arrival_rule +
              ", where simulated time stays exact to well under a microsecond");
      continue;
    }
    if (t < last_s_) {
      if (last_s_ - t > options_.time_tolerance_s) {
        bad_row("time goes back " + seconds_text(last_s_ - t) + " (to " + seconds_text(t) +
                " after the first request, previous row at " + seconds_text(last_s_) +
                "; tolerance " + seconds_text(options_.time_tolerance_s) + ")");
        continue;
      }
      t = last_s_;
      ++counters_.clamped_times;
    }
    last_s_ = t;
    out.arrival_s = t;
    if (!keep_ids_) out.id = counters_.requests;
    ++counters_.requests;
    return true;
  }
  finished_ = true;
  if (counters_.requests == 0) {
    std::string why = lines_->name() + ": no requests: ";
    if (counters_.rows == 0) {
      why = lines_->line_number() == 0 ? lines_->name() + ": empty file"
                                       : why + "no data rows after line " +
                                             std::to_string(lines_->line_number());
    } else {
      why += "all " + std::to_string(counters_.rows) + " rows skipped (" +
             std::to_string(counters_.bad_rows) + " bad, " +
             std::to_string(counters_.failed_requests) + " failed requests)";
      if (!counters_.bad_row_messages.empty()) why += "; first: " + counters_.bad_row_messages[0];
    }
    throw load_error(load_error_kind::bad_input, why);
  }
  return false;
}

double trace_reader::progress() const noexcept {
  if (finished_) return 1.0;
  const auto total = lines_->total_bytes();
  return total == 0 ? 0.0
                    : static_cast<double>(lines_->bytes_consumed()) / static_cast<double>(total);
}

}  // namespace kvscope
