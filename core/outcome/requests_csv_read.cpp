// Reading the per-request CSV back: the GUI's request table opens one written by
// `simulate --requests`.
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>

#include "load/csv.hpp"
#include "load/numbers.hpp"
#include "outcome/requests_csv.hpp"
#include "util/number_text.hpp"

namespace kvscope {
namespace {

constexpr std::size_t old_column_count = 16;  // as requests_csv_header_before_parts() lists them
constexpr std::size_t column_count = old_column_count + 3 + latency_part_columns.size();
constexpr std::size_t first_latency_column = 12;  // ttft_s, tpot_s, e2e_s, queue_s

std::string column_name(std::size_t column) {
  const std::string_view header = requests_csv_header();
  std::size_t start = 0;
  for (std::size_t i = 0; i < column; ++i) start = header.find(',', start) + 1;
  return std::string(header.substr(start, header.find(',', start) - start));
}

class row_reader {
 public:
  row_reader(const std::vector<std::string_view>& cells, std::string_view where)
      : cells_(cells), where_(where) {}

  // A time or latency: empty reads as NaN (undefined).
  double real(std::size_t column) {
    const std::string_view cell = cells_[column];
    double v = std::numeric_limits<double>::quiet_NaN();
    if (!cell.empty()) check(column, parse_finite(cell, v));
    return v;
  }
  std::uint64_t whole(std::size_t column, std::uint64_t max) {
    std::uint64_t v = 0;
    check(column, parse_whole(cells_[column], max, v));
    return v;
  }
  std::uint32_t count(std::size_t column) {
    return static_cast<std::uint32_t>(whole(column, std::numeric_limits<std::uint32_t>::max()));
  }
  const std::string& error() const { return error_; }

 private:
  void check(std::size_t column, number_error e) {
    if (e == number_error::none || !error_.empty()) return;
    error_ = std::string(where_) + ": column " + column_name(column) + ": '" + std::string(cells_[column]) +
             "' " + std::string(describe(e));
  }

  const std::vector<std::string_view>& cells_;
  std::string_view where_;
  std::string error_;
};

// split_csv keeps a doubled quote inside a quoted field doubled: the writer doubled it.
std::string unquote(std::string_view cell) {
  std::string out;
  for (std::size_t i = 0; i < cell.size(); ++i) {
    out += cell[i];
    if (cell[i] == '"' && i + 1 < cell.size() && cell[i + 1] == '"') ++i;
  }
  return out;
}

expected<request_record, std::string> parse_row(const std::vector<std::string_view>& cells,
                                                 const std::string& where, std::size_t columns) {
  if (cells.size() != columns) {
    return unexpected{where + ": expected " + std::to_string(columns) + " cells, found " +
                      std::to_string(cells.size())};
  }
  row_reader in(cells, where);
  request_record r;
  r.request_id = in.whole(0, std::numeric_limits<std::uint64_t>::max());
  r.arrival_s = in.real(1);
  r.first_scheduled_s = in.real(2);
  r.first_token_s = in.real(3);
  r.finish_s = in.real(4);
  r.prompt_tokens = in.count(5);
  r.output_tokens = in.count(6);
  r.cached_prompt_tokens = in.count(7);
  r.preemptions = in.count(8);
  r.recomputed_tokens = in.whole(9, std::numeric_limits<std::uint64_t>::max());
  if (cells[10] == to_string(request_outcome::finished)) {
    r.outcome = request_outcome::finished;
  } else if (cells[10] == to_string(request_outcome::rejected)) {
    r.outcome = request_outcome::rejected;
  } else {
    return unexpected{where + ": column outcome: '" + std::string(cells[10]) +
                      "' is neither finished nor rejected"};
  }
  r.reason = unquote(cells[11]);
  // A record computes its latencies from its times: a latency the row's times contradict (an
  // edited file) is refused rather than shown with either value.
  const double from_times[] = {r.ttft_s(), r.tpot_s(), r.e2e_s(), r.queue_s()};
  for (std::size_t i = 0; i < std::size(from_times); ++i) {
    const std::size_t column = first_latency_column + i;
    const double written = in.real(column);
    if (!in.error().empty()) return unexpected{in.error()};
    if (written == from_times[i] || (std::isnan(written) && std::isnan(from_times[i]))) continue;
    std::string expected;
    if (!std::isnan(from_times[i])) append_shortest(expected, from_times[i]);
    return unexpected{where + ": column " + column_name(column) + ": '" + std::string(cells[column]) +
                      "' is not what the row's times and outcome give ('" + expected + "')"};
  }
  if (columns > old_column_count) {
    std::size_t column = old_column_count;
    r.client_wait_s = in.real(column++);
    r.alone_ttft_s = in.real(column++);
    r.alone_tpot_s = in.real(column++);
    for (const auto& c : latency_part_columns) r.parts.*c.member = in.real(column++);
    if (!in.error().empty()) return unexpected{in.error()};
  }
  return r;  // an error in any column returned in the loop: row_reader keeps the first
}

}  // namespace

expected<std::vector<request_record>, std::string> parse_requests_csv(std::string_view text,
                                                                      std::string_view name) {
  std::vector<request_record> rows;
  std::vector<std::string_view> cells;
  std::size_t line_no = 0;
  std::size_t columns = column_count;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = std::string(name) + ":" + std::to_string(line_no);
    if (line_no == 1) {
      if (line == requests_csv_header_before_parts()) {
        columns = old_column_count;
        continue;
      }
      if (line != requests_csv_header()) {
        return unexpected{where + ": not a per-request CSV: expected the header " +
                          std::string(requests_csv_header())};
      }
      continue;
    }
    if (line.empty()) continue;
    if (!split_csv(line, cells)) return unexpected{where + ": a quote is left open, or text follows a closing quote"};
    auto row = parse_row(cells, where, columns);
    if (!row) return unexpected{row.error()};
    rows.push_back(std::move(*row));
  }
  if (line_no == 0) return unexpected{std::string(name) + ": empty file, expected a per-request CSV"};
  return rows;
}

}  // namespace kvscope
