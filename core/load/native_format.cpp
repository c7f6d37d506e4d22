#include "load/native_format.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "load/json_util.hpp"
#include "load/load_error.hpp"
#include "util/atomic_write.hpp"
#include "util/number_text.hpp"
#include "util/quote_text.hpp"

namespace kvscope {
namespace {

void append_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace

std::string native_header_line(std::string_view source) {
  std::string out = "{\"format\":";
  append_string(out, native_format_tag);
  out += ",\"version\":";
  append_shortest(out, native_format_version);
  out += ",\"source\":";
  append_string(out, source);
  out += "}\n";
  return out;
}

void append_native_line(std::string& out, const request& r) {
  out += "{\"id\":";
  append_shortest(out, r.id);
  out += ",\"arrival_s\":";
  append_shortest(out, r.arrival_s);
  out += ",\"prompt_tokens\":";
  append_shortest(out, std::uint64_t{r.prompt_tokens});
  out += ",\"output_tokens\":";
  append_shortest(out, std::uint64_t{r.output_tokens});
  if (!r.prefix_hashes.empty()) {
    out += ",\"prefix_block_size\":";
    append_shortest(out, std::uint64_t{r.prefix_block_size});
    out += ",\"prefix_hashes\":[";
    for (std::size_t i = 0; i < r.prefix_hashes.size(); ++i) {
      if (i) out += ',';
      append_shortest(out, r.prefix_hashes[i]);
    }
    out += ']';
  }
  if (!r.label.empty()) {
    out += ",\"label\":";
    append_string(out, r.label);
  }
  out += "}\n";
}

std::uint64_t record_native(request_source& source, const std::filesystem::path& path,
                            std::string_view source_description, const progress_fn& progress) {
  const auto check = [](expected<void, std::string> done) {
    if (!done) throw load_error(load_error_kind::io_failure, done.error());
  };
  atomic_file file;  // a failed or interrupted recording leaves no half file behind
  check(file.open(path));
  check(file.write(native_header_line(source_description)));
  std::uint64_t n = 0;
  std::string line;
  for_each_request(
      source,
      [&](const request& r) {
        line.clear();
        append_native_line(line, r);
        check(file.write(line));
        ++n;
      },
      progress);
  check(file.commit());
  return n;
}

struct native_reader::json_state {
  simdjson::ondemand::parser parser;
};

native_reader::native_reader(std::unique_ptr<line_reader> lines, const read_options& options)
    : trace_reader(std::move(lines), options, true), json_(std::make_unique<json_state>()) {
  std::string_view line;
  do {
    if (!this->lines().next(line)) {
      throw load_error(load_error_kind::bad_input,
                       this->lines().name() + ": empty file: no kvscope-load header line");
    }
  } while (line.find_first_not_of(" \t") == std::string_view::npos);

  const std::string expected_header = "the first line must be the header {\"format\":\"" +
                                      std::string(native_format_tag) + "\",\"version\":" +
                                      std::to_string(native_format_version) + ",...}";
  const simdjson::padded_string_view json(line.data(), line.size(),
                                          this->lines().capacity_from(line));
  simdjson::ondemand::document doc;
  simdjson::ondemand::object object;
  auto error = json_->parser.iterate(json).get(doc);
  if (!error) error = doc.get_object().get(object);
  if (error) refuse("not a kvscope load: " + expected_header);
  std::string format;
  std::uint64_t version = 0;
  bool has_version = false;
  json_util::key_set keys;
  for (auto field : object) {
    std::string_view key;
    if (field.unescaped_key().get(key)) refuse("malformed header: " + expected_header);
    if (std::string why; !keys.note(key, why)) refuse("header " + why);
    if (key == "format") {
      std::string_view text;
      if (field.value().get_string().get(text)) refuse("header 'format' is not a string");
      format = text;
    } else if (key == "version") {
      if (field.value().get_uint64().get(version)) refuse("header 'version' is not a whole number");
      has_version = true;
    } else if (key == "source") {
      std::string_view text;
      if (field.value().get_string().get(text)) refuse("header 'source' is not a string");
      source_ = text;
    }
    // Other header keys are informational.
  }
  if (format != native_format_tag || !has_version) refuse("not a kvscope load: " + expected_header);
  if (version != native_format_version) {
    refuse("kvscope-load version " + std::to_string(version) + " is not supported (this build reads version " +
           std::to_string(native_format_version) + ")");
  }
}

native_reader::~native_reader() = default;

trace_reader::row_status native_reader::parse_row(std::string_view line, request& out,
                                                  std::string& why) {
  namespace od = simdjson::ondemand;
  const simdjson::padded_string_view json(line.data(), line.size(), lines().capacity_from(line));
  od::document doc;
  od::object object;
  if (!json_util::open_object(json_->parser, json, doc, object, "a request line is {...}", why)) {
    return row_status::bad;
  }
  simdjson::error_code error = simdjson::SUCCESS;
  enum : unsigned { f_id = 1, f_time = 2, f_prompt = 4, f_output = 8, f_block = 16, f_hashes = 32, f_label = 64 };
  unsigned seen = 0;
  out.prefix_hashes.clear();
  out.prefix_block_size = 0;
  out.label.clear();
  for (auto field : object) {
    std::string_view key;
    od::value value;
    error = field.unescaped_key().get(key);
    if (!error) error = field.value().get(value);
    if (error) {
      why = json_util::problem(error);
      return row_status::bad;
    }
    unsigned bit = 0;
    if (key == "id") bit = f_id;
    else if (key == "arrival_s") bit = f_time;
    else if (key == "prompt_tokens") bit = f_prompt;
    else if (key == "output_tokens") bit = f_output;
    else if (key == "prefix_block_size") bit = f_block;
    else if (key == "prefix_hashes") bit = f_hashes;
    else if (key == "label") bit = f_label;
    if (bit == 0) {
      why = "unknown field " + quote_for_message(key);
      return row_status::bad;
    }
    if (seen & bit) {
      why = "field '" + std::string(key) + "' given twice";
      return row_status::bad;
    }
    seen |= bit;
    bool ok = true;
    switch (bit) {
      case f_id:
        error = value.get_uint64().get(out.id);
        if (error) {
          why = "field 'id' is not an unsigned 64-bit integer";
          ok = false;
        }
        break;
      case f_time:
        error = value.get_double().get(out.arrival_s);
        if (error || !std::isfinite(out.arrival_s)) {
          why = "field 'arrival_s' is not a finite number (seconds expected)";
          ok = false;
        }
        break;
      case f_prompt: ok = json_util::count(value, key, out.prompt_tokens, why); break;
      case f_output: ok = json_util::count(value, key, out.output_tokens, why); break;
      case f_block: ok = json_util::count(value, key, out.prefix_block_size, why); break;
      case f_hashes: ok = json_util::id_array(value, key, out.prefix_hashes, why); break;
      case f_label: {
        std::string_view text;
        error = value.get_string().get(text);
        if (error) {
          why = "field 'label' is not a string";
          ok = false;
        } else {
          out.label = text;
        }
        break;
      }
      default: break;
    }
    if (!ok) return row_status::bad;
  }
  if (!json_util::at_end(doc)) {
    why = "unexpected content after the JSON object";
    return row_status::bad;
  }
  for (auto [bit, name] : {std::pair{unsigned{f_id}, "id"}, std::pair{unsigned{f_time}, "arrival_s"},
                           std::pair{unsigned{f_prompt}, "prompt_tokens"},
                           std::pair{unsigned{f_output}, "output_tokens"}}) {
    if (!(seen & bit)) {
      why = std::string("missing field '") + name + "'";
      return row_status::bad;
    }
  }
  if (out.prefix_hashes.empty() != (out.prefix_block_size == 0)) {
    why = "fields 'prefix_hashes' and 'prefix_block_size' go together (non-empty hashes, block size >= 1)";
    return row_status::bad;
  }
  return row_status::ok;
}

}  // namespace kvscope
