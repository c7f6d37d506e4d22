#include "load/json_util.hpp"

#include <charconv>
#include <cmath>
#include <algorithm>
#include <vector>

#include "load/load_error.hpp"
#include "util/quote_text.hpp"

namespace kvscope::json_util {

std::string problem(simdjson::error_code error) {
  using simdjson::error_code;
  switch (error) {
    case error_code::INCOMPLETE_ARRAY_OR_OBJECT:
      return "truncated JSON: an object or array is not closed";
    case error_code::UNCLOSED_STRING:
      return "truncated JSON: a string is not closed";
    case error_code::EMPTY:
      return "truncated JSON: no value";
    case error_code::UTF8_ERROR:
      return "malformed JSON: not valid UTF-8";
    default:
      return std::string("malformed JSON: ") + simdjson::error_message(error);
  }
}

bool count(simdjson::ondemand::value value, std::string_view field, std::uint32_t& out,
           std::string& why) {
  double d = 0;
  const auto error = value.get_double().get(d);
  auto fail = [&](std::string_view what) {
    why = "field '" + std::string(field) + "' " + std::string(what);
    return false;
  };
  if (error == simdjson::INCORRECT_TYPE) return fail("is not a number");
  if (error) {
    why = problem(error) + " (in field '" + std::string(field) + "')";
    return false;
  }
  if (!std::isfinite(d)) return fail("is not a finite number");
  if (d < 0) return fail("is negative");
  if (d != std::floor(d)) return fail("is not a whole number");
  if (d > 4294967295.0) return fail("is too large (more than 2^32-1 tokens)");
  out = static_cast<std::uint32_t>(d);
  return true;
}

bool id_array(simdjson::ondemand::value value, std::string_view field,
              std::vector<std::uint64_t>& out, std::string& why) {
  out.clear();
  simdjson::ondemand::array array;
  auto error = value.get_array().get(array);
  if (error) {
    why = error == simdjson::INCORRECT_TYPE
              ? "field '" + std::string(field) + "' is not an array"
              : problem(error) + " (in field '" + std::string(field) + "')";
    return false;
  }
  for (auto element : array) {
    std::uint64_t id = 0;
    error = element.get_uint64().get(id);
    if (error) {
      const std::string where =
          "field '" + std::string(field) + "' element " + std::to_string(out.size());
      why = error == simdjson::INCORRECT_TYPE || error == simdjson::NUMBER_OUT_OF_RANGE
                ? where + " is not an unsigned 64-bit integer"
                : problem(error) + " (in " + where + ")";
      return false;
    }
    out.push_back(id);
  }
  return true;
}

bool key_set::note(std::string_view key, std::string& why) {
  bool fresh = true;
  if (many_.empty()) {
    fresh = std::find(few_.begin(), few_.end(), key) == few_.end();
    if (fresh) few_.push_back(key);
    if (few_.size() > max_few) {
      many_.insert(few_.begin(), few_.end());
      few_.clear();
    }
  } else {
    fresh = many_.insert(key).second;
  }
  if (!fresh) why = "field " + quote_for_message(key) + " given twice";
  return fresh;
}

bool object_keys(std::string_view line, std::vector<std::string>& keys, std::string& format_value) {
  keys.clear();
  format_value.clear();
  const simdjson::padded_string json(line);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (parser.iterate(json).get(doc)) return false;
  simdjson::ondemand::object object;
  if (doc.get_object().get(object)) return false;
  for (auto field : object) {
    std::string_view key;
    if (field.unescaped_key().get(key)) return false;
    keys.emplace_back(key);
    if (key == "format") {
      std::string_view text;
      if (!field.value().get_string().get(text)) format_value = text;
    }
  }
  return true;
}

namespace {

// True when the object or array that `text` opens closes before text that is not blank. simdjson
// reports a root object whose line does not end in '}' as "not closed", even when the object is
// whole and something merely follows it.
bool closed_with_text_after(std::string_view text) noexcept {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return text.find_first_not_of(" \t\r", i + 1) != std::string_view::npos;
    }
  }
  return false;
}

}  // namespace

bool open_object(simdjson::ondemand::parser& parser, simdjson::padded_string_view padded,
                 simdjson::ondemand::document& doc, simdjson::ondemand::object& object,
                 std::string_view what_object, std::string& why) {
  auto error = parser.iterate(padded).get(doc);
  if (!error) error = doc.get_object().get(object);
  if (!error) return true;
  if (error == simdjson::INCORRECT_TYPE) {
    why = "not a JSON object (" + std::string(what_object) + ")";
  } else if (error == simdjson::INCOMPLETE_ARRAY_OR_OBJECT &&
             closed_with_text_after(std::string_view(padded.data(), padded.length()))) {
    why = "unexpected content after the JSON object";
  } else {
    why = problem(error);
  }
  return false;
}

}  // namespace kvscope::json_util
