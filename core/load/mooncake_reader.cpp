#include "load/mooncake_reader.hpp"

#include <cmath>

#include "load/json_util.hpp"

namespace kvscope {

struct mooncake_reader::json_state {
  simdjson::ondemand::parser parser;
  json_util::key_set keys;  // of the row being read
};

mooncake_reader::mooncake_reader(std::unique_ptr<line_reader> lines, const read_options& options)
    : trace_reader(std::move(lines), options, false), json_(std::make_unique<json_state>()) {}

mooncake_reader::~mooncake_reader() = default;

trace_reader::row_status mooncake_reader::parse_row(std::string_view line, request& out,
                                                    std::string& why) {
  namespace od = simdjson::ondemand;
  const simdjson::padded_string_view json(line.data(), line.size(), lines().capacity_from(line));
  od::document doc;
  od::object object;
  if (!json_util::open_object(json_->parser, json, doc, object, "a Mooncake row is {...}", why)) {
    return row_status::bad;
  }
  simdjson::error_code error = simdjson::SUCCESS;
  bool has_time = false, has_input = false, has_output = false, has_hashes = false;
  out.prefix_hashes.clear();
  out.label.clear();
  json_->keys.clear();
  for (auto field : object) {
    std::string_view key;
    error = field.unescaped_key().get(key);
    if (error) {
      why = json_util::problem(error);
      return row_status::bad;
    }
    if (!json_->keys.note(key, why)) return row_status::bad;
    od::value value;
    error = field.value().get(value);
    if (error) {
      why = json_util::problem(error);
      return row_status::bad;
    }
    if (key == "timestamp") {
      has_time = true;
      double ms = 0;
      error = value.get_double().get(ms);
      if (error || !std::isfinite(ms)) {
        why = error && error != simdjson::INCORRECT_TYPE
                  ? json_util::problem(error) + " (in field 'timestamp')"
                  : "field 'timestamp' is not a finite number (milliseconds expected)";
        return row_status::bad;
      }
      out.arrival_s = ms / 1000.0;
    } else if (key == "input_length") {
      has_input = true;
      if (!json_util::count(value, key, out.prompt_tokens, why)) return row_status::bad;
    } else if (key == "output_length") {
      has_output = true;
      if (!json_util::count(value, key, out.output_tokens, why)) return row_status::bad;
    } else if (key == "hash_ids") {
      has_hashes = true;
      if (!json_util::id_array(value, key, out.prefix_hashes, why)) return row_status::bad;
    }
    // Other fields (newer trace versions) are skipped.
  }
  if (!json_util::at_end(doc)) {
    why = "unexpected content after the JSON object";
    return row_status::bad;
  }
  for (auto [flag, name] : {std::pair{has_time, "timestamp"}, std::pair{has_input, "input_length"},
                            std::pair{has_output, "output_length"}}) {
    if (!flag) {
      why = std::string("missing field '") + name + "'";
      return row_status::bad;
    }
  }
  if (has_hashes) {
    const std::uint64_t need = (std::uint64_t{out.prompt_tokens} + block_tokens - 1) / block_tokens;
    if (out.prefix_hashes.size() != need) {
      why = "field 'hash_ids' has " + std::to_string(out.prefix_hashes.size()) +
            " ids but input_length " + std::to_string(out.prompt_tokens) + " needs " +
            std::to_string(need) + " (one per 512 tokens, the last partial)";
      return row_status::bad;
    }
  }
  out.prefix_block_size = out.prefix_hashes.empty() ? 0 : block_tokens;
  return row_status::ok;
}

}  // namespace kvscope
