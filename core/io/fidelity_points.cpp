#include "io/fidelity_points.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "load/csv.hpp"
#include "load/load_error.hpp"
#include "load/numbers.hpp"
#include "load/request.hpp"
#include "util/quote_text.hpp"
#include "util/text_file.hpp"

namespace kvscope {
namespace {

constexpr fidelity_figure_info figure_table[fidelity_figure_count] = {
    {fidelity_figure::request_throughput, "request_throughput", "req_s", "req/s"},
    {fidelity_figure::output_throughput, "output_throughput", "out_tok_s", "tok/s"},
    {fidelity_figure::ttft_mean, "ttft_mean", "ttft_mean_ms", "ms"},
    {fidelity_figure::ttft_p50, "ttft_p50", "ttft_median_ms", "ms"},
    {fidelity_figure::tpot_mean, "tpot_mean", "tpot_mean_ms", "ms"},
    {fidelity_figure::tpot_p50, "tpot_p50", "tpot_median_ms", "ms"},
    {fidelity_figure::itl_mean, "itl_mean", "itl_mean_ms", "ms"},
    {fidelity_figure::itl_p50, "itl_p50", "itl_median_ms", "ms"},
    {fidelity_figure::e2e_mean, "e2e_mean", "e2e_mean_ms", "ms"},
    {fidelity_figure::e2e_p50, "e2e_p50", "e2e_median_ms", "ms"},
};

// A row's problem; the reader adds the file and line.
struct row_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(std::string_view field, const std::string& why) {
  throw row_error("field '" + std::string(field) + "': " + why);
}

// The columns of one row by name.
class row_view {
 public:
  row_view(const std::vector<std::string_view>& header, const std::vector<std::string_view>& cells)
      : header_(header), cells_(cells) {}
  std::string_view text(std::string_view column) const {
    const auto i = find_column(header_, column);
    if (!i) fail(column, "no such column in the header");
    return *i < cells_.size() ? cells_[*i] : std::string_view{};
  }
  // The cell of a column the file may leave out: "" when the header has no such column.
  std::string_view optional_text(std::string_view column) const {
    const auto i = find_column(header_, column);
    return i && *i < cells_.size() ? cells_[*i] : std::string_view{};
  }
  std::string_view required(std::string_view column) const {
    const auto t = text(column);
    if (t.empty()) fail(column, "empty (a usable point must have it)");
    return t;
  }
  double positive(std::string_view column) const {
    double v = 0;
    const auto t = required(column);
    if (const auto e = parse_finite(t, v); e != number_error::none) fail(column, quote_for_message(t) + " " + std::string(describe(e)));
    if (!(v > 0)) fail(column, "must be positive, got " + quote_for_message(t));
    return v;
  }
  std::uint32_t whole(std::string_view column) const {
    std::uint64_t v = 0;
    const auto t = required(column);
    if (const auto e = parse_whole(t, max_request_tokens, v); e != number_error::none) fail(column, quote_for_message(t) + " " + std::string(describe(e)));
    if (v == 0) fail(column, "must be at least 1");
    return static_cast<std::uint32_t>(v);
  }
  // A rate: "inf" (all at once) or a positive number.
  double rate(std::string_view column) const {
    if (text(column) == "inf") return std::numeric_limits<double>::infinity();
    return positive(column);
  }

 private:
  const std::vector<std::string_view>& header_;
  const std::vector<std::string_view>& cells_;
};

// The option-table values of the server's setup; blank server_* columns keep the defaults.
void read_options(const row_view& row, fidelity_point& p) {
  const std::pair<std::string_view, std::string_view> columns[] = {
      {"kvscope_model", "model"}, {"kvscope_gpu", "gpu"}, {"tp", "tp"},
      {"server_max_num_batched_tokens", "max-num-batched-tokens"}, {"server_max_num_seqs", "max-num-seqs"},
      {"server_max_model_len", "max-model-len"}, {"server_gpu_memory_utilization", "gpu-memory-utilization"},
  };
  for (const auto& [column, flag] : columns) {
    const auto text = row.text(column);
    if (text.empty()) continue;
    const auto* spec = find_option(flag);
    auto value = parse_option_text(*spec, text);
    if (!value) fail(column, value.error());
    p.options.emplace_back(spec, std::move(*value));
    if (column == "tp") p.tp = std::string(text);
  }
  // Multi-step scheduling, where the server ran it (a column older files do not have).
  if (const auto steps = row.optional_text("server_num_scheduler_steps"); !steps.empty()) {
    auto value = parse_option_text(*find_option("num-scheduler-steps"), steps);
    if (!value) fail("server_num_scheduler_steps", value.error());
    p.options.emplace_back(find_option("num-scheduler-steps"), std::move(*value));
  }
  // vLLM before 0.8 ran the V0 engine ("0.5.4 ...", "0.6.x"); 0.8 and later V1 ("0.11.0").
  const auto version = row.optional_text("vllm_version");
  unsigned minor = 0;
  if (version.rfind("0.", 0) == 0 && std::sscanf(std::string(version.substr(2)).c_str(), "%u", &minor) == 1 &&
      minor < 8) {
    p.options.emplace_back(find_option("vllm-engine"), option_value{std::string("v0")});
  }
}

// The requests: the lengths file's, or num_prompts of the random dataset's fixed lengths.
void read_requests(const row_view& row, fidelity_point& p, const std::filesystem::path& base_dir) {
  auto& r = p.requests;
  const auto mode = row.required("mode");
  if (mode == "concurrency") {
    r.max_concurrency = row.whole("concurrency");
  } else if (mode != "rate") {
    fail("mode", "expected 'concurrency' or 'rate', got " + quote_for_message(mode));
  }
  r.request_rate = row.text("request_rate").empty() && r.max_concurrency ? std::numeric_limits<double>::infinity()
                                                                          : row.rate("request_rate");
  const std::uint32_t prompts = row.text("num_prompts").empty() ? 0 : row.whole("num_prompts");  // 0: blank
  if (const auto file = row.text("lengths_file"); !file.empty()) {
    auto measured = read_vllm_bench(base_dir / std::filesystem::path(std::string(file)));
    if (!measured) fail("lengths_file", measured.error());
    if (prompts && prompts != measured->input_lens.size()) {
      fail("num_prompts", std::to_string(prompts) + ", but the lengths file has " +
                              std::to_string(measured->input_lens.size()) + " requests");
    }
    r.input_lens = std::move(measured->input_lens);
    // As written: an empty generation (0) is replayed as one token but counted as vLLM's client
    // counted it (run/bench_replay.hpp).
    r.output_lens = std::move(measured->output_lens);
  } else {
    if (!prompts) fail("num_prompts", "empty (a point without a lengths file must have it)");
    const auto input = static_cast<std::uint32_t>(std::lround(row.positive("input_len")));
    const auto output_column = row.text("output_len_mean_implied").empty() ? "output_len_nominal" : "output_len_mean_implied";
    const auto output = static_cast<std::uint32_t>(std::lround(row.positive(output_column)));
    r.input_lens.assign(prompts, std::max<std::uint32_t>(input, 1));
    r.output_lens.assign(prompts, std::max<std::uint32_t>(output, 1));
  }
  r.source = p.id;
  r.completed = r.input_lens.size();
}

void read_figures(const row_view& row, fidelity_point& p) {
  for (const auto& f : figure_table) {
    auto& v = p.measured[static_cast<std::size_t>(f.figure)];
    v = std::numeric_limits<double>::quiet_NaN();
    if (!row.text(f.column).empty()) v = row.positive(f.column);
  }
  const auto excluded = row.text("excluded_figures");
  std::size_t at = 0;
  while (at < excluded.size()) {
    const auto end = std::min(excluded.find(' ', at), excluded.size());
    if (const auto word = excluded.substr(at, end - at); !word.empty()) {
      const auto* f = find_fidelity_figure(word);
      if (!f) fail("excluded_figures", quote_for_message(word) + " is no figure column (e.g. itl_mean_ms)");
      p.measured[static_cast<std::size_t>(f->figure)] = std::numeric_limits<double>::quiet_NaN();
    }
    at = end + 1;
  }
}

fidelity_point read_row(const row_view& row, std::size_t line, const std::filesystem::path& base_dir) {
  fidelity_point p;
  p.line = line;
  p.id = std::string(row.required("point_id"));
  p.source = std::string(row.required("source"));
  p.source_url = std::string(row.required("source_url"));
  p.gpu = std::string(row.text("kvscope_gpu"));
  p.model = std::string(row.text("kvscope_model"));
  p.unusable_reason = std::string(row.text("unusable_reason"));
  p.not_fitted_reason = std::string(row.optional_text("not_fitted_reason"));
  if (!p.unusable_reason.empty()) return p;  // listed with its reason; nothing else is needed
  read_options(row, p);
  if (p.gpu.empty()) row.required("kvscope_gpu");
  if (p.model.empty()) row.required("kvscope_model");
  read_requests(row, p, base_dir);
  read_figures(row, p);
  return p;
}

}  // namespace

std::span<const fidelity_figure_info> fidelity_figures() noexcept { return figure_table; }

const fidelity_figure_info* find_fidelity_figure(std::string_view name) noexcept {
  for (const auto& f : figure_table) {
    if (f.name == name || f.column == name) return &f;
  }
  return nullptr;
}

expected<std::vector<fidelity_point>, std::string> parse_fidelity_points(
    std::string_view text, std::string_view source, const std::filesystem::path& base_dir) {
  std::vector<fidelity_point> points;
  std::vector<std::string_view> header, cells;
  std::size_t line = 0, at = 0;
  while (at < text.size()) {
    const auto end = std::min(text.find('\n', at), text.size());
    auto record = text.substr(at, end - at);
    at = end + 1;
    ++line;
    if (!record.empty() && record.back() == '\r') record.remove_suffix(1);
    if (record.empty()) continue;
    const auto where = std::string(source) + ":" + std::to_string(line) + ": ";
    const bool is_header = header.empty();
    if (!split_csv(record, is_header ? header : cells)) return unexpected{where + "unbalanced quotes"};
    if (is_header) continue;
    try {
      points.push_back(read_row(row_view(header, cells), line, base_dir));
    } catch (const row_error& e) {
      return unexpected{where + e.what()};
    }
  }
  if (header.empty()) return unexpected{std::string(source) + ": empty (expected a header and one row per point)"};
  if (points.empty()) return unexpected{std::string(source) + ": no points after the header"};
  return points;
}

expected<std::vector<fidelity_point>, std::string> read_fidelity_points(const std::filesystem::path& path) {
  auto text = read_text_file(path);
  if (!text) return unexpected{text.error()};
  return parse_fidelity_points(*text, path.string(), path.parent_path());
}

}  // namespace kvscope
