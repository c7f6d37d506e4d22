// `kvscope-cli pareto FILE.csv --objectives 'max:a,min:b'`: the rows of a sweep CSV that no
// other row dominates, as a table or --json, and --plot FILE.svg of the first two objectives.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "output_checks.hpp"
#include "commands.hpp"
#include "run/metric_table.hpp"
#include "sweep/pareto.hpp"
#include "sweep/pareto_plot.hpp"
#include "sweep/sweep_data.hpp"
#include "sweep/sweep_table.hpp"
#include "util/atomic_write.hpp"
#include "util/closest_name.hpp"

namespace kvscope::cli {
namespace {

struct pareto_options {
  std::string path;
  std::string objectives;
  bool json = false;
  std::string plot_path;
};

// A cell in JSON: whole numbers as integers, other numbers as numbers, "nan" as null, the rest
// (a model name, "16MiB") as strings.
nlohmann::ordered_json json_cell(const std::string& cell) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), n);
  if (ec == std::errc{} && end == cell.data() + cell.size() && !cell.empty()) return n;
  const auto v = metric_cell_number(cell);
  if (!v) return cell;
  if (std::isnan(*v)) return nullptr;
  return *v;
}

bool is_metric_column(const std::string& name) {
  return std::any_of(sweep_metrics().begin(), sweep_metrics().end(),
                     [&](const summary_metric* m) { return m->info.key == name; });
}

std::string axis_label(const objective& o) {
  std::string label = o.key;
  if (const auto* info = find_metric(o.key); info && !info->unit.empty()) label += " (" + std::string(info->unit) + ")";
  return label + (o.dir == direction::maximize ? ", higher is better" : ", lower is better");
}

// A metric cell for people: six significant digits (--json keeps every digit).
std::string readable(const std::string& cell) {
  const auto v = metric_cell_number(cell);
  if (!v || cell.find_first_of(".eE") == std::string::npos) return cell;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", *v);
  return buf;
}

void print_table(csv_table table, const std::vector<std::size_t>& columns, const std::vector<std::size_t>& rows) {
  for (auto r : rows) {
    for (auto c : columns) {
      if (is_metric_column(table.header[c])) table.rows[r][c] = readable(table.rows[r][c]);
    }
  }
  std::vector<std::size_t> width(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    width[c] = table.header[columns[c]].size();
    for (auto r : rows) width[c] = std::max(width[c], table.rows[r][columns[c]].size());
  }
  const auto line = [&](const auto& cell) {
    std::string out;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string& text = cell(columns[c]);
      out += (c ? "  " : "") + text + std::string(width[c] - text.size(), ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    std::cout << out << '\n';
  };
  line([&](std::size_t c) -> const std::string& { return table.header[c]; });
  for (auto r : rows) line([&](std::size_t c) -> const std::string& { return table.rows[r][c]; });
}

// Each row's values of the objective columns; the file, line and column of a cell that is not
// a number otherwise.
expected<std::vector<std::vector<double>>, std::string> objective_points(const csv_table& table,
                                                                       const std::vector<std::size_t>& columns,
                                                                       const std::string& path) {
  std::vector<std::vector<double>> points;
  for (std::size_t r = 0; r < table.rows.size(); ++r) {
    std::vector<double> p;
    for (auto c : columns) {
      const auto v = metric_cell_number(table.rows[r][c]);
      if (!v) {
        return unexpected{path + ":" + std::to_string(table.row_line[r]) + ": column '" + table.header[c] + "': '" +
                          table.rows[r][c] + "' is not a number"};
      }
      p.push_back(*v);
    }
    points.push_back(std::move(p));
  }
  return points;
}

// --plot: the first objective across, the second (or the first again) up, the front marked.
expected<void, std::string> write_plot(const pareto_options& o, const std::vector<objective>& objectives,
                                       const csv_table& table, const std::vector<std::vector<double>>& points,
                                       const std::vector<std::size_t>& front) {
  std::vector<plot_point> plot;
  const std::size_t y = objectives.size() > 1 ? 1 : 0;
  for (std::size_t r = 0; r < points.size(); ++r) {
    const auto index = metric_cell_number(table.rows[r][0]);
    plot.push_back({points[r][0], points[r][y], index && *index >= 0 ? static_cast<std::size_t>(*index) : r,
                    std::find(front.begin(), front.end(), r) != front.end()});
  }
  pareto_plot_spec spec;
  spec.title = "Pareto front of " + std::filesystem::path(o.path).filename().string() + " (" +
               std::to_string(front.size()) + " of " + std::to_string(points.size()) + " configs)";
  spec.x_label = axis_label(objectives[0]);
  spec.y_label = axis_label(objectives[y]);
  spec.staircase = objectives.size() == 2;
  spec.x_maximize = objectives[0].dir == direction::maximize;
  spec.y_maximize = objectives[y].dir == direction::maximize;
  return write_file_atomically(o.plot_path, pareto_svg(plot, spec));
}

int run_pareto(const pareto_options& o) {
  auto objectives = parse_objectives(o.objectives, "--objectives");
  if (!objectives) {
    print_error(objectives.error());
    return exit_bad_input;
  }
  if (!o.plot_path.empty() && !o.plot_path.ends_with(".svg")) {
    print_error("--plot: '" + o.plot_path + "': only SVG is drawn (name the file *.svg)");
    return exit_bad_input;
  }
  if (auto problem = check_outputs({{"--plot", o.plot_path}}, {{"FILE", o.path}})) {
    print_error(*problem);
    return exit_bad_input;
  }
  auto table = read_csv_file(o.path);
  if (!table) {
    print_error(table.error());
    return exit_bad_input;
  }
  std::vector<std::size_t> objective_columns;
  for (const auto& obj : *objectives) {
    const auto c = table->column(obj.key);
    if (!c) {
      print_error("--objectives: '" + obj.key + "' is not a column of " + o.path + did_you_mean(obj.key, table->header));
      return exit_bad_input;
    }
    objective_columns.push_back(*c);
  }
  const auto read_points = objective_points(*table, objective_columns, o.path);
  if (!read_points) {
    print_error(read_points.error());
    return exit_bad_input;
  }
  const std::vector<std::vector<double>>& points = *read_points;
  auto front = pareto_front(*objectives, points);
  const auto unmeasured = std::count_if(points.begin(), points.end(), [](const auto& p) {
    return std::any_of(p.begin(), p.end(), [](double v) { return std::isnan(v); });
  });
  if (unmeasured > 0) {
    std::cerr << "kvscope-cli: " << unmeasured << " rows left out: an objective is nan or empty (not measured)\n";
  }
  // Best first on the first objective, then by index.
  std::stable_sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) {
    return better((*objectives)[0], points[a][0], points[b][0]);
  });

  if (!o.plot_path.empty()) {
    if (auto r = write_plot(o, *objectives, *table, points, front); !r) {
      print_error(r.error());
      return exit_runtime_failure;
    }
  }

  if (o.json) {
    auto rows = nlohmann::ordered_json::array();
    for (auto r : front) {
      nlohmann::ordered_json row;
      for (std::size_t c = 0; c < table->header.size(); ++c) row[table->header[c]] = json_cell(table->rows[r][c]);
      rows.push_back(std::move(row));
    }
    std::cout << rows.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    return stdout_exit_status();
  }
  std::vector<std::size_t> columns{0};
  for (std::size_t c = 1; c < table->header.size(); ++c) {
    if (!is_metric_column(table->header[c])) columns.push_back(c);
  }
  for (auto c : objective_columns) {
    if (std::find(columns.begin(), columns.end(), c) == columns.end()) columns.push_back(c);
  }
  print_table(*table, columns, front);
  return stdout_exit_status();
}

}  // namespace

void add_pareto_command(CLI::App& root, int& exit_code) {
  auto o = std::make_shared<pareto_options>();
  auto* cmd = root.add_subcommand(
      "pareto", "Print the rows of a sweep CSV no other row dominates on the objectives (best first on the first)");
  cmd->add_option("FILE", o->path, "Sweep CSV")->required()->check(CLI::ExistingFile);
  cmd->add_option("--objectives", o->objectives,
                  "Comma-separated max:METRIC or min:METRIC (a bare metric takes the metric table's better-when)")
      ->required();
  cmd->add_flag("--json", o->json, "Print the front as a JSON array of rows (every column)");
  cmd->add_option("--plot", o->plot_path, "Draw the first two objectives, front highlighted, as SVG")->check(output_file_name());
  cmd->callback([o, &exit_code] { exit_code = run_pareto(*o); });
}

}  // namespace kvscope::cli
