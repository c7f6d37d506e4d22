#pragma once
// simdjson helpers shared by the JSON-lines readers (internal: only load/*.cpp include it).
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <simdjson.h>

namespace kvscope::json_util {

// A one-line reason for a simdjson failure on a line: "truncated JSON ..." or "malformed JSON: ...".
std::string problem(simdjson::error_code error);

// True when nothing follows the value just read (simdjson 3.0 has no document::at_end()).
inline bool at_end(simdjson::ondemand::document& doc) noexcept {
  return doc.current_location().error() == simdjson::OUT_OF_BOUNDS;
}

// Parses `padded` (a line with simdjson padding after it) into `doc` and gets its top-level
// object. On failure sets `why` ("not a JSON object (<what_object>)" or the simdjson problem)
// and returns false.
bool open_object(simdjson::ondemand::parser& parser, simdjson::padded_string_view padded,
                 simdjson::ondemand::document& doc, simdjson::ondemand::object& object,
                 std::string_view what_object, std::string& why);

// Reads a token count (a whole number in [0, 2^32)) from `value`; on failure sets `why`, naming
// `field`, and returns false.
bool count(simdjson::ondemand::value value, std::string_view field, std::uint32_t& out,
           std::string& why);

// Reads an array of unsigned 64-bit integers into `out`.
bool id_array(simdjson::ondemand::value value, std::string_view field,
              std::vector<std::uint64_t>& out, std::string& why);

// The keys read so far from one JSON object (views into the parser's buffer), to refuse a key
// given twice: which of its values would count is anyone's guess. Rows have a handful of keys
// (a vector, no allocation once warm); a line with thousands switches to hashing.
class key_set {
 public:
  void clear() noexcept {
    few_.clear();
    many_.clear();
  }
  // Notes `key`; false, with `why` set to "field 'k' given twice", when it is already there.
  bool note(std::string_view key, std::string& why);

 private:
  static constexpr std::size_t max_few = 16;
  std::vector<std::string_view> few_;
  std::unordered_set<std::string_view> many_;
};

// The keys of the JSON object on `line` (copied and padded), or false if it is not one.
// `format_value` receives the string value of a "format" key if there is one.
bool object_keys(std::string_view line, std::vector<std::string>& keys, std::string& format_value);

}  // namespace kvscope::json_util
