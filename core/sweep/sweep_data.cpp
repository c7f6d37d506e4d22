#include "sweep/sweep_data.hpp"

#include <charconv>
#include <cmath>

#include "sweep/sweep_run.hpp"

namespace kvscope {
namespace {

// Where the metric columns start: after this kvscope's metric columns when the header ends with
// them (so a config column named as a metric, budget_bytes, stays a config column), else at the
// header's longest tail of summary metrics (a file of another kvscope version).
std::size_t first_metric_column(const std::vector<std::string>& header) {
  const auto& metrics = sweep_metrics();
  if (header.size() > metrics.size()) {
    const std::size_t first = header.size() - metrics.size();
    bool same = true;
    for (std::size_t m = 0; m < metrics.size() && same; ++m) same = header[first + m] == metrics[m]->info.key;
    if (same) return first;
  }
  std::size_t first = header.size();
  while (first > 1 && is_summary_number(header[first - 1])) --first;
  return first;
}

}  // namespace

std::optional<std::size_t> sweep_data::metric(std::string_view key) const {
  for (std::size_t m = 0; m < metric_columns.size(); ++m) {
    if (metric_columns[m] == key) return m;
  }
  return std::nullopt;
}

std::vector<double> sweep_data::column(std::size_t m) const {
  std::vector<double> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(r.metrics[m]);
  return out;
}

std::optional<double> metric_cell_number(std::string_view cell) {
  if (cell.empty() || cell == "nan") return NAN;
  double v = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (ec != std::errc{} || end != cell.data() + cell.size()) return std::nullopt;
  return v;
}

expected<sweep_data, std::string> sweep_data_of(const csv_table& table, std::string_view source) {
  const std::string where = std::string(source) + ":1: ";
  if (table.header.empty() || table.header[0] != "index") {
    return unexpected{where + "not a sweep CSV: the first column is not 'index' (kvscope-cli sweep writes one)"};
  }
  std::size_t first_metric = first_metric_column(table.header);
  if (first_metric == table.header.size()) {
    return unexpected{where + "not a sweep CSV: no metric column (the last column '" + table.header.back() +
                      "' is not a summary metric)"};
  }
  sweep_data data;
  data.config_columns.assign(table.header.begin() + 1, table.header.begin() + static_cast<std::ptrdiff_t>(first_metric));
  data.metric_columns.assign(table.header.begin() + static_cast<std::ptrdiff_t>(first_metric), table.header.end());
  data.rows.reserve(table.rows.size());
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    auto index = row_index(table, r, source);
    if (!index) return unexpected{index.error()};
    sweep_data_row row;
    row.index = *index;
    row.line = table.row_line[r];
    const auto& cells = table.rows[r];
    for (std::size_t c = 1; c < first_metric; ++c) {
      if (!cells[c].empty()) row.config.push_back({table.header[c], cells[c]});
    }
    for (std::size_t c = first_metric; c < cells.size(); ++c) {
      const auto v = metric_cell_number(cells[c]);
      if (!v) {
        return unexpected{std::string(source) + ":" + std::to_string(row.line) + ": column '" + table.header[c] +
                          "': '" + cells[c] + "' is not a number"};
      }
      row.metrics.push_back(*v);
    }
    data.rows.push_back(std::move(row));
  }
  return data;
}

expected<sweep_data, std::string> read_sweep_data(const std::filesystem::path& path) {
  auto table = read_csv_file(path);
  if (!table) return unexpected{table.error()};
  return sweep_data_of(*table, path.string());
}

expected<sweep_data, std::string> parse_sweep_data(std::string_view text, std::string_view source) {
  auto table = parse_csv(text, source);
  if (!table) return unexpected{table.error()};
  return sweep_data_of(*table, source);
}

}  // namespace kvscope
