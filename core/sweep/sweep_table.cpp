#include "sweep/sweep_table.hpp"

#include <algorithm>
#include <cmath>

#include "util/number_text.hpp"
#include "util/text_file.hpp"

namespace kvscope {
namespace {

// Numbers of this machine, not of the configs: they would make equal sweeps differ.
bool machine_dependent(std::string_view key) {
  return key == "wall_seconds" || key == "decode_token_steps_per_s";
}

// NaN as "nan" whatever its sign bit (to_chars would write "-nan" for some).
void append_number(std::string& out, const metric_value& v) {
  if (const auto* n = std::get_if<std::uint64_t>(&v)) {
    append_shortest(out, *n);
  } else if (const double x = std::get<double>(v); std::isnan(x)) {
    out += "nan";
  } else {
    append_shortest(out, x);
  }
}

}  // namespace

const std::vector<const summary_metric*>& sweep_metrics() {
  static const std::vector<const summary_metric*> metrics = [] {
    std::vector<const summary_metric*> m;
    const run_summary probe{};
    for (const auto& metric : summary_metric_table()) {
      if (machine_dependent(metric.info.key)) continue;
      if (std::holds_alternative<std::string>(metric.get(probe))) continue;
      m.push_back(&metric);
    }
    return m;
  }();
  return metrics;
}

std::string sweep_header(const std::vector<std::string>& config_columns) {
  std::string out = "index";
  for (const auto& c : config_columns) out += ',' + csv_cell(c);
  for (const auto* m : sweep_metrics()) out += ',' + csv_cell(m->info.key);
  return out + '\n';
}

namespace {

std::string config_cells(std::size_t index, const std::vector<std::string>& config_columns, const sweep_config& config) {
  std::string out = std::to_string(index);
  for (const auto& c : config_columns) {
    out += ',';
    if (const auto* v = find_setting(config, c)) out += csv_cell(*v);
  }
  return out;
}

}  // namespace

std::string sweep_row(std::size_t index, const std::vector<std::string>& config_columns,
                      const sweep_config& config, const run_summary& summary) {
  return sweep_row_with_metrics(index, config_columns, config, sweep_metric_cells(summary));
}

std::string sweep_metric_cells(const run_summary& summary) {
  std::string out;
  for (const auto* m : sweep_metrics()) {
    out += ',';
    append_number(out, m->get(summary));
  }
  return out;
}

std::string sweep_row_with_metrics(std::size_t index, const std::vector<std::string>& config_columns,
                                   const sweep_config& config, std::string_view metric_cells) {
  return config_cells(index, config_columns, config) + std::string(metric_cells) + '\n';
}

std::string sweep_invalid_row(std::size_t index, const std::vector<std::string>& config_columns,
                              const sweep_config& config) {
  return config_cells(index, config_columns, config) + std::string(sweep_metrics().size(), ',') + '\n';
}

std::optional<std::size_t> csv_table::column(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  return std::nullopt;
}

expected<csv_table, std::string> parse_csv(std::string_view text, std::string_view source) {
  csv_table table;
  std::size_t line = 1, pos = 0;
  const auto where = [&](std::size_t at_line) { return std::string(source) + ":" + std::to_string(at_line) + ": "; };
  while (pos < text.size()) {
    const std::size_t start = pos, start_line = line;
    std::vector<std::string> cells(1);
    bool in_quotes = false;
    for (; pos < text.size(); ++pos) {
      const char c = text[pos];
      if (in_quotes) {
        if (c == '"' && pos + 1 < text.size() && text[pos + 1] == '"') {
          cells.back() += '"';
          ++pos;
        } else if (c == '"') {
          in_quotes = false;
        } else {
          if (c == '\n') ++line;
          cells.back() += c;
        }
      } else if (c == '"') {
        in_quotes = true;
      } else if (c == ',') {
        cells.emplace_back();
      } else if (c == '\n') {
        break;
      } else if (c != '\r') {
        cells.back() += c;
      }
    }
    if (in_quotes) return unexpected{where(start_line) + "a quoted cell is not closed"};
    if (pos < text.size()) ++pos;  // the newline
    ++line;
    const std::string_view row_text = text.substr(start, pos - start);
    if (cells.size() == 1 && cells[0].empty()) continue;  // a blank line
    if (table.header.empty()) {
      // A column named twice would make "the column x" mean two things (pareto, the sweep view).
      for (std::size_t c = 1; c < cells.size(); ++c) {
        if (std::find(cells.begin(), cells.begin() + static_cast<std::ptrdiff_t>(c), cells[c]) !=
            cells.begin() + static_cast<std::ptrdiff_t>(c)) {
          return unexpected{where(start_line) + "column '" + cells[c] + "' appears twice in the header"};
        }
      }
      table.header = std::move(cells);
      table.header_text = std::string(row_text);
      continue;
    }
    if (cells.size() != table.header.size()) {
      return unexpected{where(start_line) + "row has " + std::to_string(cells.size()) +
                        " cells, the header has " + std::to_string(table.header.size())};
    }
    table.rows.push_back(std::move(cells));
    table.row_text.emplace_back(row_text);
    if (!table.row_text.back().ends_with('\n')) table.row_text.back() += '\n';
    table.row_line.push_back(start_line);
  }
  if (table.header.empty()) return unexpected{std::string(source) + ": empty file"};
  if (!table.header_text.ends_with('\n')) table.header_text += '\n';
  return table;
}

expected<csv_table, std::string> read_csv_file(const std::filesystem::path& path) {
  auto text = read_text_file(path);
  if (!text) return unexpected{text.error()};
  return parse_csv(*text, path.string());
}

expected<std::size_t, std::string> row_index(const csv_table& table, std::size_t row, std::string_view source) {
  const std::string& cell = table.rows[row][0];
  std::size_t index = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), index);
  if (ec != std::errc{} || end != cell.data() + cell.size() || cell.empty()) {
    return unexpected{std::string(source) + ":" + std::to_string(table.row_line[row]) +
                      ": column 'index': '" + cell + "' is not a config index"};
  }
  return index;
}

}  // namespace kvscope
