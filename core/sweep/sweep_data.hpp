#pragma once
// A sweep CSV (sweep/sweep_table.hpp) read back as values: each row's index, its config as the
// settings it was run with and its metrics as numbers, for views that plot or rank the rows
// (the GUI's sweep view, pareto). Parsing stays here, so what is shown is what the file says.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sweep/sweep_space.hpp"
#include "sweep/sweep_table.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct sweep_data_row {
  std::size_t index = 0;      // the config's index in its sweep
  std::size_t line = 0;       // 1-based line in the file, for messages
  sweep_config config;        // the non-empty config cells, in column order
  std::vector<double> metrics;  // one per metric column; NaN where unmeasured or not run
};

struct sweep_data {
  std::vector<std::string> config_columns;
  std::vector<std::string> metric_columns;  // in the file's order
  std::vector<sweep_data_row> rows;         // in the file's order

  // The position of metric `key` in metric_columns, or nullopt.
  std::optional<std::size_t> metric(std::string_view key) const;
  // Metric `m` of every row, in row order.
  std::vector<double> column(std::size_t m) const;
};

// A metric cell as a number: NaN for "nan" or an empty cell (unmeasured, or a config that could
// not run), nullopt for anything that is not a number.
std::optional<double> metric_cell_number(std::string_view cell);

// The table as a sweep: `index` first, config columns, then the metric columns (the header's
// longest tail of numeric summary metrics, so a file of an older kvscope with fewer metrics
// reads too). Errors are "SOURCE:LINE: why": no index column, no metric column, a bad index, a
// metric cell that is not a number.
expected<sweep_data, std::string> sweep_data_of(const csv_table& table, std::string_view source);
// Reads and parses a sweep CSV; errors name the file (and line).
expected<sweep_data, std::string> read_sweep_data(const std::filesystem::path& path);
// Parses sweep CSV text (what sweep_file::text() gives).
expected<sweep_data, std::string> parse_sweep_data(std::string_view text, std::string_view source);

}  // namespace kvscope
