#pragma once
// Just enough CSV for the published traces: comma-separated, optional double quotes.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kvscope {

// Splits one record into `fields` (views into `line`), trimming spaces and tabs around each.
// A field in double quotes may hold commas; the quotes are dropped and a doubled quote inside
// stays doubled (no trace field needs unescaping). False when a quote is left open or text
// other than blanks follows a closing quote before the next comma (`"a"b,c`).
bool split_csv(std::string_view line, std::vector<std::string_view>& fields);

// A cell as CSV writes it, so that split_csv reads back exactly `text`: quoted when it holds a
// comma, a quote or a line break, or starts or ends with a blank (split_csv trims unquoted
// cells); a quote inside is doubled.
std::string csv_cell(std::string_view text);
void append_csv_cell(std::string& out, std::string_view text);

// Index of the column named `name` (ASCII case-insensitive), or nullopt.
std::optional<std::size_t> find_column(const std::vector<std::string_view>& header,
                                       std::string_view name) noexcept;

}  // namespace kvscope
