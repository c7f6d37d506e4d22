#pragma once
// The per-request CSV: one row per completed request, in completion order. Numbers are written
// in their shortest exact form (std::to_chars: reading them back gives the same double, and the
// same events give the same bytes); an undefined value is an empty cell; the reason is quoted
// per RFC 4180 when it holds a comma, a double quote or a line break.
#include <string>
#include <string_view>

#include "outcome/request_record.hpp"

namespace kvscope {

// The header line, without the line ending.
std::string_view requests_csv_header() noexcept;

// Appends the record's row and a '\n' to `out`.
void append_requests_csv_row(std::string& out, const request_record& r);

}  // namespace kvscope
