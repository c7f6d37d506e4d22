#include "sweep/sweep_file.hpp"

#include <charconv>
#include <system_error>

#include "sweep/sweep_table.hpp"
#include "util/atomic_write.hpp"

namespace kvscope {
namespace {

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

sweep_file::sweep_file(std::filesystem::path path, std::string header)
    : path_(std::move(path)), header_(std::move(header)) {}

expected<void, std::string> sweep_file::resume(const sweep_plan& plan, const sweep_shard& shard) {
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec)) return {};
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
    rows_[*index] = std::move(table->row_text[r]);
  }
  return {};
}

std::string sweep_file::text() const {
  std::string out = header_;
  for (const auto& [index, row] : rows_) out += row;
  return out;
}

expected<void, std::string> sweep_file::write() const { return write_file_atomically(path_, text()); }

expected<std::string, std::string> merge_sweep_files(const std::vector<std::filesystem::path>& paths) {
  if (paths.empty()) return unexpected{std::string("no files to merge")};
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
  std::string out = header;
  for (const auto& [index, row] : rows) {
    if (index != expected_index) {
      return unexpected{"config " + std::to_string(expected_index) +
                        " is in none of the files (a shard missing or unfinished?)"};
    }
    ++expected_index;
    out += row;
  }
  return out;
}

}  // namespace kvscope
