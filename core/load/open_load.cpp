#include "load/open_load.hpp"

#include <algorithm>

#include "load/csv_trace_reader.hpp"
#include "load/generator.hpp"
#include "load/vllm_bench.hpp"
#include "load/json_file_kind.hpp"
#include "load/json_util.hpp"
#include "load/load_error.hpp"
#include "load/mooncake_reader.hpp"
#include "load/native_format.hpp"
#include "util/quote_text.hpp"

namespace kvscope {
namespace {

constexpr std::pair<load_format, std::string_view> names[] = {
    {load_format::automatic, "auto"}, {load_format::azure, "azure"},
    {load_format::burstgpt, "burstgpt"}, {load_format::mooncake, "mooncake"},
    {load_format::vidur, "vidur"},   {load_format::native, "native"},
};

// Text traces are UTF-8 without control bytes but tab (CR is stripped by the line reader).
bool looks_binary(std::string_view line) noexcept {
  return std::any_of(line.begin(), line.end(),
                     [](char c) {
                       const auto u = static_cast<unsigned char>(c);
                       return (u < 0x20 && u != '\t') || u == 0x7f;
                     }) ||
         !simdjson::validate_utf8(line.data(), line.size());
}

// Throws what a JSON file that is no trace is and how to use it (a policy config, a bench
// result, a provenance, a session), when the whole document says so; returns otherwise. Only
// on the way to refusing the file, so reading all of it costs nothing in a good run.
void refuse_known_json_file(line_reader& lines) {
  constexpr std::size_t max_document_bytes = std::size_t{64} << 20;
  std::string document;
  try {
    lines.restart();
    std::string_view line;
    while (lines.next(line)) {
      if (document.size() + line.size() > max_document_bytes) return;
      document.append(line).push_back('\n');
    }
  } catch (const load_error&) {
    return;  // unreadable past the first line: the caller's reason stands
  }
  if (auto message = misplaced_json_file(document, lines.name(), json_file_role::load)) {
    throw load_error(load_error_kind::bad_input, *message);
  }
}

std::unique_ptr<request_source> open_lines(std::unique_ptr<line_reader> lines, load_format format,
                                           const read_options& options) {
  // Peek at the first non-blank line: it picks the format, or shows a forced one is wrong.
  std::string_view line;
  bool found = false;
  while (lines->next(line)) {
    if (line.find_first_not_of(" \t") != std::string_view::npos) {
      found = true;
      break;
    }
  }
  if (!found) throw load_error(load_error_kind::bad_input, lines->name() + ": empty file");
  const std::string where = lines->name() + ":" + std::to_string(lines->line_number());
  if (format == load_format::automatic) {
    try {
      format = detect_format(line, where);
    } catch (const load_error&) {
      if (line[line.find_first_not_of(" \t")] == '{') refuse_known_json_file(*lines);
      throw;
    }
  } else {
    std::optional<load_format> seen;
    try {
      seen = detect_format(line, where);
    } catch (const load_error&) {
      // Not recognisable: the forced format's reader will say what is wrong with it.
    }
    if (seen && *seen != format) {
      throw load_error(load_error_kind::bad_input,
                       where + ": --format " + std::string(format_name(format)) +
                           " does not match this file, whose first line is in the " +
                           std::string(format_name(*seen)) + " format");
    }
  }
  lines->restart();
  switch (format) {
    case load_format::azure:
      return std::make_unique<csv_trace_reader>(std::move(lines), csv_layout::azure, options);
    case load_format::burstgpt:
      return std::make_unique<csv_trace_reader>(std::move(lines), csv_layout::burstgpt, options);
    case load_format::vidur:
      return std::make_unique<csv_trace_reader>(std::move(lines), csv_layout::vidur, options);
    case load_format::mooncake:
      return std::make_unique<mooncake_reader>(std::move(lines), options);
    case load_format::native:
      return std::make_unique<native_reader>(std::move(lines), options);
    case load_format::automatic:
      break;
  }
  throw load_error(load_error_kind::bad_input, lines->name() + ": no format");
}

}  // namespace

std::string_view format_name(load_format f) noexcept {
  for (const auto& [format, name] : names) {
    if (format == f) return name;
  }
  return "?";
}

std::optional<load_format> parse_load_format(std::string_view name) noexcept {
  for (const auto& [format, n] : names) {
    if (n == name) return format;
  }
  return std::nullopt;
}

std::vector<std::string> load_format_names() {
  std::vector<std::string> out;
  for (const auto& entry : names) out.emplace_back(entry.second);
  return out;
}

load_format detect_format(std::string_view line, std::string_view source_name) {
  const std::string where(source_name);
  // The line reader splits at LF only, so a file with bare CR line endings (classic Mac) is one
  // long "line" whose CRs would otherwise make it look binary.
  if (line.find('\r') != std::string_view::npos) {
    std::string without_cr(line);
    std::erase(without_cr, '\r');
    if (!looks_binary(without_cr)) {
      throw load_error(load_error_kind::bad_input,
                       where + ": lines end in a bare CR (classic Mac line endings), which no trace "
                               "format uses; convert them to LF, e.g. tr '\\r' '\\n'");
    }
  }
  if (looks_binary(line)) {
    throw load_error(load_error_kind::bad_input,
                     where + ": binary data, not a text trace (first bytes " +
                         quote_for_message(line.substr(0, 16)) + ")");
  }
  if (line.find_first_not_of(" \t") != std::string_view::npos &&
      line[line.find_first_not_of(" \t")] == '{') {
    std::vector<std::string> keys;
    std::string format;
    if (!json_util::object_keys(line, keys, format)) {
      throw load_error(load_error_kind::bad_input,
                       where + ": the first line starts like JSON but is not a valid JSON object");
    }
    auto has = [&](std::string_view k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); };
    if (format == native_format_tag) return load_format::native;
    if (has("timestamp") && has("input_length") && has("output_length")) return load_format::mooncake;
    throw load_error(load_error_kind::bad_input,
                     where + ": JSON lines of an unknown kind (neither a kvscope-load header nor a "
                             "Mooncake row with timestamp, input_length, output_length); use "
                             "--format");
  }
  if (const auto layout = detect_csv_layout(line)) {
    switch (*layout) {
      case csv_layout::azure: return load_format::azure;
      case csv_layout::burstgpt: return load_format::burstgpt;
      case csv_layout::vidur: return load_format::vidur;
    }
  }
  throw load_error(load_error_kind::bad_input,
                   where + ": unknown format: the first line " + quote_for_message(line) +
                       " is not a header of a known trace (azure: TIMESTAMP,ContextTokens,"
                       "GeneratedTokens; burstgpt: Timestamp,...,Request tokens,Response tokens; "
                       "vidur: arrived_at,num_prefill_tokens,num_decode_tokens; mooncake or native "
                       "JSON lines); use --format");
}

std::unique_ptr<request_source> open_load(std::string_view spec, load_format format,
                                          const read_options& options) {
  if (spec.starts_with("gen:")) {
    if (format != load_format::automatic) {
      throw load_error(load_error_kind::bad_input,
                       "--format " + std::string(format_name(format)) +
                           " applies to trace files, not to a generated load ('gen:...')");
    }
    auto parsed = parse_generator_spec(spec);
    if (!parsed) throw load_error(load_error_kind::bad_input, parsed.error());
    return std::make_unique<generator_source>(*parsed);
  }
  if (spec.starts_with("bench:")) {
    // A `vllm bench serve --save-result` file, replayed with its lengths and its pacing.
    auto result = read_vllm_bench(std::filesystem::path(spec.substr(6)));
    if (!result) throw load_error(load_error_kind::bad_input, result.error());
    return make_vllm_bench_load(*result);
  }
  if (spec.empty()) throw load_error(load_error_kind::bad_input, "empty load spec");
  return open_lines(std::make_unique<line_reader>(std::filesystem::path(spec)), format, options);
}

std::unique_ptr<request_source> open_load_text(std::string name, std::string_view content,
                                               load_format format, const read_options& options) {
  return open_lines(std::make_unique<line_reader>(std::move(name), content), format, options);
}

}  // namespace kvscope
