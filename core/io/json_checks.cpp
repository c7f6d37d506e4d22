#include "io/json_checks.hpp"

#include <algorithm>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

namespace kvscope {
namespace {

using json = nlohmann::json;

// nlohmann's id for "number overflow parsing '1e400'" (json.exception.out_of_range.406).
constexpr int number_overflow_id = 406;

class strict_sax {
 public:
  strict_sax(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  const std::string& problem() const noexcept { return problem_; }

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(json::number_integer_t) { return value(); }
  bool number_unsigned(json::number_unsigned_t) { return value(); }
  bool number_float(json::number_float_t, const json::string_t&) { return value(); }
  bool string(json::string_t&) { return value(); }
  bool binary(json::binary_t&) { return value(); }

  bool start_object(std::size_t) {
    frames_.push_back({});
    return true;
  }
  bool key(json::string_t& key) {
    frame& f = frames_.back();
    f.key = key;
    if (!f.keys.insert(key).second) {
      problem_ = std::string(source_) + ": duplicate key '" + path() + "'";
      return false;
    }
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) {
    frames_.emplace_back().array = true;
    return true;
  }
  bool end_array() { return close(); }

  bool parse_error(std::size_t byte, const std::string&, const json::exception& e) {
    if (e.id == number_overflow_id) {
      // Same line arithmetic as the policy reader's syntax errors: `byte` is one past the token.
      const auto before = text_.substr(0, std::min(byte, text_.size()) - (byte > 0 ? 1 : 0));
      const auto line = 1 + std::count(before.begin(), before.end(), '\n');
      const std::string field = path();
      problem_ = std::string(source_) + ":" + std::to_string(line) + ": " +
                 (field.empty() ? std::string() : "field '" + field + "': ") +
                 "number out of range";
    }
    return false;  // any other syntax error: the caller's parser says it
  }

 private:
  struct frame {
    bool array = false;
    std::size_t index = 0;  // arrays: of the element being read
    std::string key;        // objects: of the value being read
    std::unordered_set<std::string> keys;
  };

  bool value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
    return true;
  }
  bool close() {
    frames_.pop_back();
    return value();  // the object or array just closed was a value of its parent
  }

  std::string path() const {
    std::string out;
    for (const frame& f : frames_) {
      if (f.array) {
        out += "[" + std::to_string(f.index) + "]";
      } else {
        if (!out.empty()) out += '.';
        out += f.key;
      }
    }
    return out;
  }

  std::string_view text_, source_;
  std::vector<frame> frames_;
  std::string problem_;
};

}  // namespace

expected<void, std::string> check_json_document(std::string_view text, std::string_view source) {
  strict_sax sax(text, source);
  json::sax_parse(text.begin(), text.end(), &sax);
  if (!sax.problem().empty()) return unexpected{sax.problem()};
  return {};
}

}  // namespace kvscope
