#include "load/csv_trace_reader.hpp"

#include <limits>

#include <simdjson.h>

#include "load/csv.hpp"
#include "load/load_error.hpp"
#include "load/numbers.hpp"
#include "load/timestamp.hpp"
#include "util/quote_text.hpp"

namespace kvscope {
namespace {

struct layout_columns {
  std::string_view name;
  std::string_view time, prompt, output;
};

constexpr layout_columns columns_of[] = {
    {"azure", "TIMESTAMP", "ContextTokens", "GeneratedTokens"},
    {"burstgpt", "Timestamp", "Request tokens", "Response tokens"},
    {"vidur", "arrived_at", "num_prefill_tokens", "num_decode_tokens"},
};

const layout_columns& columns(csv_layout layout) { return columns_of[static_cast<int>(layout)]; }

bool has_columns(const std::vector<std::string_view>& header, csv_layout layout) {
  const auto& c = columns(layout);
  return find_column(header, c.time) && find_column(header, c.prompt) &&
         find_column(header, c.output);
}

}  // namespace

std::optional<csv_layout> detect_csv_layout(std::string_view header_line) {
  std::vector<std::string_view> header;
  if (!split_csv(header_line, header)) return std::nullopt;
  for (csv_layout layout : {csv_layout::azure, csv_layout::burstgpt, csv_layout::vidur}) {
    if (has_columns(header, layout)) return layout;
  }
  return std::nullopt;
}

csv_trace_reader::csv_trace_reader(std::unique_ptr<line_reader> lines, csv_layout layout,
                                   const read_options& options)
    : trace_reader(std::move(lines), options, false), layout_(layout) {
  const auto& want = columns(layout);
  std::string_view line;
  do {
    if (!this->lines().next(line)) {
      throw load_error(load_error_kind::bad_input,
                       this->lines().name() + ": empty file: no header line (the " +
                           std::string(want.name) + " format starts with '" +
                           std::string(want.time) + "," + std::string(want.prompt) + "," +
                           std::string(want.output) + "')");
    }
  } while (line.find_first_not_of(" \t") == std::string_view::npos);

  std::vector<std::string_view> header;
  if (!split_csv(line, header)) refuse("header has a quote left open, or text after a closing quote");
  for (auto h : header) names_.emplace_back(h);
  auto need = [&](std::string_view name) {
    const auto at = find_column(header, name);
    if (!at) {
      refuse("header has no column '" + std::string(name) + "' (the " + std::string(want.name) +
             " format needs " + std::string(want.time) + ", " + std::string(want.prompt) + ", " +
             std::string(want.output) + "; the header is " + quote_for_message(line) + ")");
    }
    return *at;
  };
  time_col_ = need(want.time);
  prompt_col_ = need(want.prompt);
  output_col_ = need(want.output);
  if (layout == csv_layout::burstgpt) {
    model_col_ = find_column(header, "Model");
    log_type_col_ = find_column(header, "Log Type");
  }
}

std::string_view csv_trace_reader::format_name() const noexcept { return columns(layout_).name; }

bool csv_trace_reader::count_field(std::size_t column, std::uint32_t& out, std::string& why) const {
  std::uint64_t v = 0;
  const number_error e =
      parse_whole(fields_[column], std::numeric_limits<std::uint32_t>::max(), v);
  if (e != number_error::none) {
    why = "column '" + names_[column] + "': " +
          (e == number_error::empty ? std::string("is empty")
                                    : quote_for_message(fields_[column]) + " " +
                                          std::string(describe(e)));
    return false;
  }
  out = static_cast<std::uint32_t>(v);
  return true;
}

trace_reader::row_status csv_trace_reader::parse_row(std::string_view line, request& out,
                                                     std::string& why) {
  if (!split_csv(line, fields_)) {
    why = "a quote is left open, or text follows a closing quote";
    return row_status::bad;
  }
  if (fields_.size() != names_.size()) {
    why = "row has " + std::to_string(fields_.size()) + " fields, the header has " +
          std::to_string(names_.size());
    if (fields_.size() < names_.size()) why += " (column '" + names_[fields_.size()] + "' is missing)";
    return row_status::bad;
  }

  const std::string_view time_text = fields_[time_col_];
  if (layout_ == csv_layout::azure) {
    const auto ns = parse_timestamp_ns(time_text);
    if (!ns) {
      why = "column '" + names_[time_col_] + "': cannot parse timestamp " +
            quote_for_message(time_text) + " (expected YYYY-MM-DD HH:MM:SS[.fraction][+HH:MM])";
      return row_status::bad;
    }
    if (!base_ns_) base_ns_ = *ns;
    out.arrival_s = static_cast<double>(*ns - *base_ns_) * 1e-9;
  } else {
    const number_error e = parse_finite(time_text, out.arrival_s);
    if (e != number_error::none) {
      why = "column '" + names_[time_col_] + "': " +
            (e == number_error::empty ? std::string("is empty")
                                      : quote_for_message(time_text) + " " +
                                            std::string(describe(e)) + " (seconds expected)");
      return row_status::bad;
    }
  }
  if (!count_field(prompt_col_, out.prompt_tokens, why)) return row_status::bad;
  if (!count_field(output_col_, out.output_tokens, why)) return row_status::bad;

  out.prefix_hashes.clear();
  out.prefix_block_size = 0;
  out.label.clear();
  if (layout_ == csv_layout::burstgpt) {
    for (auto column : {model_col_, log_type_col_}) {
      if (!column) continue;
      const std::string_view text = fields_[*column];
      if (!simdjson::validate_utf8(text.data(), text.size())) {
        why = "column '" + names_[*column] + "': not valid UTF-8 text";
        return row_status::bad;
      }
      if (!out.label.empty() && !text.empty()) out.label += '/';
      out.label += text;
    }
    if (out.output_tokens == 0) return row_status::failed_request;
  }
  return row_status::ok;
}

}  // namespace kvscope
