#include "util/json_fields.hpp"

#include <cmath>
#include <fstream>
#include <iterator>

namespace kvscope::detail {
namespace {

// "got string \"4096\"": the JSON type and a short rendering of the value, for messages.
std::string describe(const nlohmann::json& value) {
  std::string shown = value.dump();
  if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
  return std::string("got ") + value.type_name() + " " + shown;
}

}  // namespace

std::string field_text(std::string_view field, std::string_view what) {
  std::string out = "field '";
  out += field;
  out += "': ";
  out += what;
  return out;
}

std::string field_error(std::string_view source, std::string_view field, std::string_view what) {
  return std::string(source) + ": " + field_text(field, what);
}

void fail_field(std::string_view field, std::string_view what) {
  throw bad_field(field_text(field, what));
}

expected<nlohmann::json, std::string> parse_json_object(std::string_view text,
                                                        std::string_view source) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {  // a parse error, or a number past a double (1e400)
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." → tail
    if (const auto at = what.find("parse error"); at != std::string::npos) what = what.substr(at);
    return unexpected{std::string(source) + ": invalid JSON: " + what};
  }
  if (!doc.is_object()) {
    return unexpected{std::string(source) + ": expected a JSON object, got " + doc.type_name()};
  }
  return doc;
}

const nlohmann::json* find_field(const nlohmann::json& object, std::string_view field) {
  const auto it = object.find(field);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

expected<std::uint64_t, std::string> read_integer(const nlohmann::json& value,
                                                  std::string_view source, std::string_view field,
                                                  std::uint64_t min, std::uint64_t max) {
  // nlohmann stores every non-negative whole number as unsigned; negatives and 8.0 are not.
  if (value.is_number_unsigned()) {
    const auto n = value.get<std::uint64_t>();
    if (n >= min && n <= max) return n;
  }
  const std::string wanted =
      max != std::numeric_limits<std::uint64_t>::max()
          ? "a whole number in [" + std::to_string(min) + ", " + std::to_string(max) + "]"
      : min == 0 ? "a non-negative integer"
      : min == 1 ? "a positive integer"
                 : "an integer >= " + std::to_string(min);
  return unexpected{field_error(source, field, "expected " + wanted + ", " + describe(value))};
}

expected<bool, std::string> read_bool(const nlohmann::json& value, std::string_view source,
                                      std::string_view field) {
  if (value.is_boolean()) return value.get<bool>();
  return unexpected{field_error(source, field, "expected true or false, " + describe(value))};
}

expected<std::string, std::string> read_string(const nlohmann::json& value, std::string_view source,
                                               std::string_view field) {
  if (value.is_string()) return value.get<std::string>();
  return unexpected{field_error(source, field, "expected a string, " + describe(value))};
}

expected<double, std::string> read_number(const nlohmann::json& value, std::string_view source,
                                          std::string_view field, double low, double high,
                                          std::string_view range) {
  if (value.is_number()) {
    const auto n = value.get<double>();
    if (std::isfinite(n) && n >= low && n <= high) return n;
  }
  return unexpected{
      field_error(source, field, "expected " + std::string(range) + ", " + describe(value))};
}

bool names_json_file(std::string_view name_or_path) noexcept {
  return name_or_path.size() > 5 && name_or_path.ends_with(".json");
}

}  // namespace kvscope::detail
