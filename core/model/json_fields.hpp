#pragma once
// Reading config fields out of a JSON object with errors that name the file and the field
// (internal to model/: only its .cpp files include it, nlohmann_json stays private to core).
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "util/expected.hpp"
#include "util/text_file.hpp"

namespace kvscope::detail {

// "SOURCE: field 'FIELD': WHAT"
std::string field_error(std::string_view source, std::string_view field, std::string_view what);

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
