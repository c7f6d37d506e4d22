#pragma once
// The sweep CSV: a header `index,<config columns>,<metrics>` and one row per config, in config
// order. The metrics are every numeric summary metric of the metric table (run/metric_table.hpp)
// but those of the machine that ran it (wall-clock time, engine speed), so the bytes depend on
// the configs and the load only: 1 job or N, MPI ranks or merged shards give the same file.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "load/csv.hpp"
#include "run/metric_table.hpp"
#include "run/run_summary.hpp"
#include "sweep/sweep_space.hpp"
#include "util/expected.hpp"

namespace kvscope {

// The metric columns, in the metric table's order.
const std::vector<const summary_metric*>& sweep_metrics();

// The header line (with its newline).
std::string sweep_header(const std::vector<std::string>& config_columns);

// Config i's row (with its newline): its index, its value for each config column (empty where it
// sets none) and the metrics; doubles in shortest round-trip form, "nan" where unmeasured.
std::string sweep_row(std::size_t index, const std::vector<std::string>& config_columns,
                      const sweep_config& config, const run_summary& summary);
// The same in two halves: the metric cells of a summary (",m1,m2,...", no newline), and a row of
// those cells under another config, for a config whose run repeats another's (sweep/run_reuse.hpp).
std::string sweep_metric_cells(const run_summary& summary);
std::string sweep_row_with_metrics(std::size_t index, const std::vector<std::string>& config_columns,
                                   const sweep_config& config, std::string_view metric_cells);

// The row of a config that cannot run (sweep --skip-invalid): its index and config cells, and
// every metric cell empty.
std::string sweep_invalid_row(std::size_t index, const std::vector<std::string>& config_columns,
                              const sweep_config& config);

// A CSV file read whole: its header, its rows' cells and each row's text and line number.
struct csv_table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row_text;  // each row as it stands in the file, newline included
  std::vector<std::size_t> row_line;  // 1-based line of each row
  std::string header_text;            // the header line, newline included

  std::optional<std::size_t> column(std::string_view name) const;
};

// Parses CSV text (RFC 4180 quotes). Errors are "SOURCE:LINE: why": an unclosed quote, a row
// with another number of cells than the header, an empty file.
expected<csv_table, std::string> parse_csv(std::string_view text, std::string_view source);
// Reads and parses a file; "FILE: cannot open" when it cannot be read.
expected<csv_table, std::string> read_csv_file(const std::filesystem::path& path);

// The index of a sweep row (its first cell), or an error naming the line.
expected<std::size_t, std::string> row_index(const csv_table& table, std::size_t row, std::string_view source);

}  // namespace kvscope
