#include "sweep/sweep_file.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <system_error>

#include "sweep/sweep_data.hpp"
#include "sweep/sweep_provenance.hpp"
#include "sweep/sweep_table.hpp"
#include "util/atomic_write.hpp"
#include "util/text_file.hpp"

namespace kvscope {
namespace {

// The sidecar beside `csv`, nullopt when there is none.
expected<std::optional<std::string>, std::string> read_sidecar(const std::filesystem::path& csv) {
  const auto sidecar = sweep_provenance_path(csv);
  std::error_code ec;
  if (!std::filesystem::exists(sidecar, ec)) return std::optional<std::string>{};
  auto text = read_text_file(sidecar);
  if (!text) return unexpected{text.error()};
  return std::optional<std::string>{std::move(*text)};
}

// Whether the rows of `csv` were made from the sweep `provenance` describes.
expected<void, std::string> check_recorded(const std::filesystem::path& csv, const std::string& provenance) {
  const std::string where = csv.string() + ": --resume: ";
  auto recorded = read_sidecar(csv);
  if (!recorded) return unexpected{recorded.error()};
  if (!*recorded) {
    return unexpected{where + "no " + sweep_provenance_path(csv).filename().string() +
                      " beside it (written by a kvscope before sweeps recorded their load and options, or not by "
                      "sweep): its rows cannot be checked against this sweep; run without --resume to start again"};
  }
  auto differences = compare_provenance(**recorded, sweep_provenance_path(csv).string(), provenance, "this sweep");
  if (!differences) return unexpected{differences.error() + " (--resume)"};
  if (!differences->empty()) {
    return unexpected{where + "made from another run: " + describe_differences(*differences, "the file", "this sweep") +
                      " (run without --resume to start again, or use another --out)"};
  }
  return {};
}

// The 1-based character column where cell `cell` of a CSV row starts.
std::size_t cell_column(std::string_view row, std::size_t cell) {
  bool quoted = false;
  std::size_t at = 0;
  for (std::size_t i = 0; i < row.size() && at < cell; ++i) {
    if (row[i] == '"') {
      quoted = !quoted;
    } else if (row[i] == ',' && !quoted && ++at == cell) {
      return i + 2;
    }
  }
  return 1;
}

// Row r's metric cells (from `first`) as kvscope writes them: each a number or "nan", or every
// one empty for a config that cannot run (`can_run` false). Anything else was changed by hand.
expected<void, std::string> check_metric_cells(const csv_table& table, std::size_t r, std::size_t first, bool can_run,
                                               std::size_t index, const std::string& source) {
  const auto& cells = table.rows[r];
  const bool none = std::all_of(cells.begin() + static_cast<std::ptrdiff_t>(first), cells.end(),
                                [](const std::string& c) { return c.empty(); });
  if (none && !can_run) return {};
  for (std::size_t c = first; c < cells.size(); ++c) {
    if (!cells[c].empty() && metric_cell_number(cells[c])) continue;
    return unexpected{source + ":" + std::to_string(table.row_line[r]) + ":" +
                      std::to_string(cell_column(table.row_text[r], c)) + ": --resume: column '" + table.header[c] +
                      "': '" + cells[c] + "' is not a number (kvscope writes a number or 'nan' there: the row was "
                      "changed since); delete the line to run config " + std::to_string(index) +
                      " again, or run without --resume"};
  }
  return {};
}

std::optional<std::size_t> parse_index(std::string_view text) {
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return n;
}

}  // namespace

expected<sweep_shard, std::string> parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  const auto part = parse_index(text.substr(0, slash));
  const auto count = slash == std::string_view::npos ? std::nullopt : parse_index(text.substr(slash + 1));
  if (!part || !count || *count == 0 || *part >= *count) {
    return unexpected{"--shard: expected K/N with 0 <= K < N (e.g. 0/4), got '" + std::string(text) + "'"};
  }
  return sweep_shard{*part, *count};
}

sweep_file::sweep_file(std::filesystem::path path, std::string header, std::string provenance)
    : path_(std::move(path)), header_(std::move(header)), provenance_(std::move(provenance)) {}

expected<void, std::string> sweep_file::resume(const sweep_plan& plan, const sweep_shard& shard) {
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) return {};
  if (!provenance_.empty()) {
    if (auto same = check_recorded(path_, provenance_); !same) return same;
  }
  auto table = read_csv_file(path_);
  if (!table) return unexpected{table.error() + " (--resume)"};
  const std::string source = path_.string();
  if (table->header_text != header_) {
    return unexpected{source + ":1: --resume: the header is not this sweep's (other axes, or another kvscope's metrics): use another --out"};
  }
  for (std::size_t r = 0; r < table->rows.size(); ++r) {
    auto index = row_index(*table, r, source);
    if (!index) return unexpected{index.error()};
    const std::string where = source + ":" + std::to_string(table->row_line[r]) + ": --resume: ";
    if (*index >= plan.configs.size() || !shard.takes(*index)) {
      return unexpected{where + "config " + std::to_string(*index) + " is not one this sweep runs here"};
    }
    const auto& config = plan.configs[*index];
    for (std::size_t c = 0; c < plan.columns.size(); ++c) {
      const auto* value = find_setting(config, plan.columns[c]);
      const std::string expected_cell = value ? *value : std::string();
      if (table->rows[r][c + 1] != expected_cell) {
        return unexpected{where + "config " + std::to_string(*index) + " has " + plan.columns[c] + "='" +
                          table->rows[r][c + 1] + "', this sweep has '" + expected_cell +
                          "': not the same sweep (use another --out)"};
      }
    }
    const bool can_run = plan.invalid.empty() || plan.invalid[*index].empty();
    if (auto cells = check_metric_cells(*table, r, plan.columns.size() + 1, can_run, *index, source); !cells) {
      return cells;
    }
    rows_[*index] = std::move(table->row_text[r]);
  }
  return {};
}

std::string sweep_file::text() const {
  std::string out = header_;
  for (const auto& [index, row] : rows_) out += row;
  return out;
}

expected<void, std::string> sweep_file::write() const {
  if (auto r = write_file_atomically(path_, text()); !r || provenance_.empty()) return r;
  return write_file_atomically(sweep_provenance_path(path_), provenance_);
}

namespace {

// The files' common sidecar text ("" when none has one), or why they are not one sweep.
expected<std::string, std::string> common_provenance(const std::vector<std::filesystem::path>& paths) {
  std::vector<std::optional<std::string>> texts;
  for (const auto& path : paths) {
    auto text = read_sidecar(path);
    if (!text) return unexpected{text.error()};
    texts.push_back(std::move(*text));
  }
  const std::string first = paths.front().string();
  for (std::size_t i = 1; i < paths.size(); ++i) {
    const std::string other = paths[i].string();
    if (texts[i].has_value() != texts.front().has_value()) {
      const std::string& without = texts[i] ? first : other;
      return unexpected{without + ": no " + sweep_provenance_path(without).string() + " beside it, but " +
                        (texts[i] ? other : first) +
                        " has one: its rows cannot be checked against the others' (made by a kvscope before sweeps "
                        "recorded their load and options?): run that shard again"};
    }
    if (!texts[i]) continue;
    auto differences = compare_provenance(*texts.front(), sweep_provenance_path(first).string(), *texts[i],
                                          sweep_provenance_path(other).string());
    if (!differences) return unexpected{differences.error()};
    if (!differences->empty()) {
      return unexpected{other + ": not the same sweep as " + first + ": " +
                        describe_differences(*differences, first, other)};
    }
  }
  // Each shard counted the reuse among its own rows: no count of theirs holds for the whole.
  return texts.front() ? sweep_provenance_without_reuse(*texts.front()) : "";
}

}  // namespace

expected<merged_sweep, std::string> merge_sweep_files(const std::vector<std::filesystem::path>& paths) {
  if (paths.empty()) return unexpected{std::string("no files to merge")};
  auto provenance = common_provenance(paths);
  if (!provenance) return unexpected{provenance.error()};
  std::string header;
  std::map<std::size_t, std::string> rows;
  for (const auto& path : paths) {
    auto table = read_csv_file(path);
    if (!table) return unexpected{table.error()};
    const std::string source = path.string();
    if (table->header.empty() || table->header[0] != "index") {
      return unexpected{source + ":1: not a sweep CSV (its first column is not 'index')"};
    }
    if (header.empty()) {
      header = table->header_text;
    } else if (table->header_text != header) {
      return unexpected{source + ":1: the header differs from " + paths.front().string() + "'s: not the same sweep"};
    }
    for (std::size_t r = 0; r < table->rows.size(); ++r) {
      auto index = row_index(*table, r, source);
      if (!index) return unexpected{index.error()};
      auto [it, inserted] = rows.emplace(*index, table->row_text[r]);
      if (!inserted && it->second != table->row_text[r]) {
        return unexpected{source + ":" + std::to_string(table->row_line[r]) + ": config " +
                          std::to_string(*index) + " differs from the same config in an earlier file"};
      }
    }
  }
  std::size_t expected_index = 0;
  merged_sweep out{header, std::move(*provenance), {}};
  for (const auto& [index, row] : rows) {
    if (index != expected_index) {
      return unexpected{"config " + std::to_string(expected_index) +
                        " is in none of the files (a shard missing or unfinished?)"};
    }
    ++expected_index;
    out.csv += row;
  }
  if (out.provenance.empty()) {
    out.warning = "none of the files has a .provenance.json sidecar (made by a kvscope before sweeps recorded "
                  "their load and options): that they come from one load and one set of options is not checked, "
                  "and the merged file has no sidecar either";
  }
  return out;
}

}  // namespace kvscope
