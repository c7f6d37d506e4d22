#pragma once
// Reading fields out of JSON files with errors that name the file and the field, in one style:
// "SOURCE: field 'a.b': WHY". Every reader of a JSON file in core uses it (internal to core:
// only core's .cpp files include it, so nlohmann_json stays private to core).
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

#include "util/expected.hpp"
#include "util/text_file.hpp"

namespace kvscope::detail {

// "field 'FIELD': WHAT": the one spelling of a problem at a field ("a.b", "steps[2].until").
std::string field_text(std::string_view field, std::string_view what);

// "SOURCE: field 'FIELD': WHAT"
std::string field_error(std::string_view source, std::string_view field, std::string_view what);

// A problem found while parsing, thrown from deep in a reader and given its source by
// with_source: a field_text, or a whole sentence when no one field is to blame.
struct bad_field : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws bad_field(field_text(field, what)).
[[noreturn]] void fail_field(std::string_view field, std::string_view what);

// "PATH.KEY", or KEY at the top (PATH ""): the name of a field inside the object at PATH.
inline std::string child_field(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : std::string(path) + "." + std::string(key);
}

// Throws bad_field unless `object` is an object whose keys are all in `allowed`.
template <class Json>
void only_keys(const Json& object, std::string_view path, std::initializer_list<std::string_view> allowed) {
  if (!object.is_object()) fail_field(path, std::string("expected an object, got ") + object.type_name());
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (auto a : allowed) known = known || a == key;
    if (!known) fail_field(child_field(path, key), "unknown key");
  }
}

// What `parse()` returns, or "SOURCE: " + the message of the bad_field it threw.
template <class Parse>
auto with_source(std::string_view source, Parse&& parse)
    -> expected<std::invoke_result_t<Parse>, std::string> {
  try {
    return std::forward<Parse>(parse)();
  } catch (const bad_field& e) {
    return unexpected{std::string(source) + ": " + e.what()};
  }
}

// The file at `path` parsed by `parse(text, source)` with the path as its source, or the
// read's own error ("PATH: cannot open file", ...).
template <class Parse>
auto read_and_parse(const std::filesystem::path& path, Parse&& parse)
    -> std::invoke_result_t<Parse, std::string_view, std::string_view> {
  auto text = read_text_file(path);
  if (!text) return unexpected{text.error()};
  return std::forward<Parse>(parse)(*text, path.string());
}

// The whole text as one JSON object; "SOURCE: invalid JSON at line L, column C: ..." or
// "SOURCE: expected a JSON object, got array" otherwise.
expected<nlohmann::json, std::string> parse_json_object(std::string_view text,
                                                        std::string_view source);

// The value of `field`, or nullptr when the key is absent or its value is null (HF configs write
// null for "not set", e.g. "sliding_window": null).
const nlohmann::json* find_field(const nlohmann::json& object, std::string_view field);

// The readers below take a present, non-null value and name `field` in their errors.
// A whole number in [min, max] ("expected a positive integer" for min 1 and no max; with a max,
// "expected a whole number in [1, 4096], got 2147483648").
expected<std::uint64_t, std::string> read_integer(
    const nlohmann::json& value, std::string_view source, std::string_view field,
    std::uint64_t min = 1, std::uint64_t max = std::numeric_limits<std::uint64_t>::max());
expected<bool, std::string> read_bool(const nlohmann::json& value, std::string_view source,
                                      std::string_view field);
expected<std::string, std::string> read_string(const nlohmann::json& value, std::string_view source,
                                               std::string_view field);
// A finite number in [low, high]; `range` describes it for the message ("a number > 0").
expected<double, std::string> read_number(const nlohmann::json& value, std::string_view source,
                                          std::string_view field, double low, double high,
                                          std::string_view range);

// True when `name_or_path` names a file rather than a built-in: it ends in ".json".
bool names_json_file(std::string_view name_or_path) noexcept;

}  // namespace kvscope::detail
