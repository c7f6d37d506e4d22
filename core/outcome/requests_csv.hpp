#pragma once
// The per-request CSV: one row per completed request, in completion order. Numbers are written
// in their shortest exact form (std::to_chars: reading them back gives the same double, and the
// same events give the same bytes); an undefined value is an empty cell; the reason is quoted
// per RFC 4180 when it holds a comma, a double quote or a line break.
#include <string>
#include <string_view>
#include <vector>

#include "outcome/request_record.hpp"
#include "util/expected.hpp"

namespace kvscope {

// The header line, without the line ending: the request's times, counts and latencies, then
// its wait at the client, its latencies alone, and where its time went (latency_parts.hpp).
std::string_view requests_csv_header() noexcept;
// The header files written before the latency parts had (still read: their parts read as 0).
std::string_view requests_csv_header_before_parts() noexcept;

// Appends the record's row and a '\n' to `out`.
void append_requests_csv_row(std::string& out, const request_record& r);

// The rows of a per-request CSV as append_requests_csv_row wrote them (the header must be
// requests_csv_header(); CRLF line endings are accepted; an empty cell reads as NaN; each
// latency cell must be what the row's times give, request_record computing it). Errors
// name the file as `name`, the line and the column, e.g.
// "run.csv:4: column ttft_s: 'abc' is not a number".
expected<std::vector<request_record>, std::string> parse_requests_csv(std::string_view text,
                                                                      std::string_view name);

}  // namespace kvscope
