// Reading policy files: JSON or TOML to one list of entries, then to a config, every problem
// named by its key and line. Writing them is policy_file_write.cpp.
#include "io/policy_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <variant>

#include <nlohmann/json.hpp>

#include "io/json_checks.hpp"
#include "io/policy_family_fields.hpp"
#include "io/text_checks.hpp"
#include "io/toml_checked.hpp"
#include "load/json_file_kind.hpp"
#include "util/quote_text.hpp"
#include "util/text_file.hpp"

namespace kvscope {
namespace {

// One top-level entry of a config document, whatever the syntax it came from.
struct entry {
  std::string key;
  std::variant<double, std::string, std::monostate> value;  // monostate: some other type
  std::string type_name;  // for messages when the type is wrong
  bool is_table = false;
  int line = 0;           // 0 when the syntax cannot tell
};

std::string located(std::string_view source, int line, std::string_view what) {
  std::string out(source);
  if (line > 0) {
    out += ':';
    out += std::to_string(line);
  }
  out += ": ";
  out += what;
  return out;
}

// Builds the config from the entries; every problem names its key.
expected<policy_config, std::string> decode(const std::vector<entry>& entries,
                                            std::string_view source) {
  policy_config config;
  struct float_field {
    std::string_view name;
    float policy_config::*member;
  };
  constexpr float_field float_fields[] = {
      {"q8_threshold", &policy_config::q8_threshold},
      {"q4_threshold", &policy_config::q4_threshold},
      {"hysteresis", &policy_config::hysteresis},
      {"ewma_alpha", &policy_config::ewma_alpha},
  };
  // The family decides which parameters a file may hold, wherever its key stands.
  for (const entry& e : entries) {
    if (e.key != "family") continue;
    if (auto why = apply_family_key(config, e.key, std::get_if<double>(&e.value),
                                    std::get_if<std::string>(&e.value), e.type_name)) {
      return unexpected{located(source, e.line, *why)};
    }
  }
  for (const entry& e : entries) {
    if (e.key == "family") continue;
    if (is_family_key(e.key)) {
      if (auto why = apply_family_key(config, e.key, std::get_if<double>(&e.value),
                                      std::get_if<std::string>(&e.value), e.type_name)) {
        return unexpected{located(source, e.line, *why)};
      }
      continue;
    }
    if (e.key == "provenance") {
      if (!e.is_table) {
        return unexpected{located(source, e.line, "'provenance' must be an object/table, got " +
                                                      e.type_name)};
      }
      continue;
    }
    const auto field = std::find_if(std::begin(float_fields), std::end(float_fields),
                                    [&](const float_field& f) { return f.name == e.key; });
    if (field != std::end(float_fields)) {
      const double* number = std::get_if<double>(&e.value);
      if (!number) {
        return unexpected{
            located(source, e.line, "'" + e.key + "' must be a number, got " + e.type_name)};
      }
      // A finite double past the float range would become inf (or undefined behaviour).
      if (std::isfinite(*number) && std::abs(*number) > std::numeric_limits<float>::max()) {
        return unexpected{located(source, e.line, "field '" + e.key + "': number out of range")};
      }
      config.*(field->member) = static_cast<float>(*number);
      continue;
    }
    if (e.key == "q3_threshold") {  // optional: absent keeps q3 off, as the reference has it
      const double* number = std::get_if<double>(&e.value);
      if (!number) return unexpected{located(source, e.line, "'q3_threshold' must be a number, got " + e.type_name)};
      if (std::isfinite(*number) && std::abs(*number) > std::numeric_limits<float>::max()) {
        return unexpected{located(source, e.line, "field 'q3_threshold': number out of range")};
      }
      config.q3_threshold = static_cast<float>(*number);
      continue;
    }
    if (e.key == "min_level" || e.key == "max_level") {
      const std::string* text = std::get_if<std::string>(&e.value);
      if (!text) {
        return unexpected{located(source, e.line,
                                  "'" + e.key + "' must be a level tag string, got " + e.type_name)};
      }
      const auto level = parse_precision(*text);
      if (!level) {
        return unexpected{located(source, e.line,
                                  "'" + e.key + "': unknown level " + quote_for_message(*text) +
                                      " (expected fp16, q8, fp8, q4 or q3)")};
      }
      (e.key == "min_level" ? config.min_level : config.max_level) = *level;
      continue;
    }
    return unexpected{located(source, e.line, "unknown key " + quote_for_message(e.key))};
  }
  if (auto reason = validate(config)) {
    return unexpected{located(source, 0, invalid_policy_message(*reason))};
  }
  return config;
}

// JSON values carry no positions in nlohmann::json: find the key's line by its first quoted
// occurrence, which is exact for the flat documents this format allows.
int json_key_line(std::string_view text, const std::string& key) {
  const auto pos = text.find("\"" + key + "\"");
  if (pos == std::string_view::npos) return 0;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

expected<std::vector<entry>, std::string> json_entries(std::string_view text,
                                                       std::string_view source) {
  // Duplicate keys and numbers past a double, which nlohmann would not report as parse errors.
  if (auto checked = check_json_document(text, source); !checked) {
    return unexpected{checked.error()};
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    const auto byte = std::min<std::size_t>(e.byte, text.size());
    const auto before = text.substr(0, byte > 0 ? byte - 1 : 0);
    const int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." → tail
    if (const auto colon = what.find(": "); colon != std::string::npos) what = what.substr(colon + 2);
    return unexpected{located(source, line, "invalid JSON: " + what)};
  }
  if (!doc.is_object()) {
    return unexpected{located(source, 1, std::string("expected a JSON object, got ") +
                                             doc.type_name())};
  }
  std::vector<entry> entries;
  for (const auto& [key, value] : doc.items()) {
    entry e{key, std::monostate{}, value.type_name(), value.is_object(), json_key_line(text, key)};
    if (value.is_number()) e.value = value.get<double>();
    if (value.is_string()) e.value = value.get<std::string>();
    entries.push_back(std::move(e));
  }
  return entries;
}

std::string toml_type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "table";
    case toml::node_type::array: return "array";
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    case toml::node_type::date: return "date";
    case toml::node_type::time: return "time";
    case toml::node_type::date_time: return "date-time";
    default: return "nothing";
  }
}

// toml++ checks a number's syntax before converting it, so a conversion that fails afterwards
// failed on its range ("'1e400' could not be interpreted as a value", "... is not representable
// in 64 bits").
bool toml_number_out_of_range(std::string_view description) {
  return description.find("' could not be interpreted as a value") != std::string_view::npos ||
         description.find("' is not representable in 64 bits") != std::string_view::npos;
}

std::string_view trim_blanks(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// The key of the `key = value` on `line` (from 1), prefixed by the [table] it is in; empty when
// the line holds no key (a value continued from an earlier line). toml++ errors carry no key.
std::string toml_key_at(std::string_view text, int line) {
  std::string table;
  std::string_view current;
  for (int n = 1; n <= line && !text.empty(); ++n) {
    const auto end = text.find('\n');
    current = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    const auto trimmed = trim_blanks(current);
    if (n < line && trimmed.starts_with('[')) {  // [table] or [[array of tables]]
      auto name = trimmed.substr(std::min(trimmed.find_first_not_of('['), trimmed.size()));
      table = std::string(trim_blanks(name.substr(0, name.find(']'))));
    }
  }
  const auto equals = current.find('=');
  if (equals == std::string_view::npos) return {};
  auto key = std::string(trim_blanks(current.substr(0, equals)));
  if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'') && key.back() == key.front()) {
    key = key.substr(1, key.size() - 2);
  }
  if (key.empty() || key.front() == '[' || key.front() == '{') return {};
  return table.empty() ? key : table + "." + key;
}

expected<std::vector<entry>, std::string> toml_entries(std::string_view text,
                                                       std::string_view source) {
  // Only bytes toml++ handles correctly reach it (see io/toml_checked.hpp).
  if (auto ascii = check_policy_ascii(text, source); !ascii) return unexpected{ascii.error()};
  toml::table doc;
  try {
    doc = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto line = static_cast<int>(e.source().begin.line);
    // toml++ 3.3 garbles the key's name in this error when it was written quoted ('"q8q8_threshold" ').
    if (e.description().starts_with("Error while parsing key-value pair: cannot redefine existing")) {
      if (const std::string field = toml_key_at(text, line); !field.empty()) {
        return unexpected{located(source, line, "duplicate key " + quote_for_message(field))};
      }
    }
    if (toml_number_out_of_range(e.description())) {
      const std::string field = toml_key_at(text, line);
      return unexpected{located(
          source, line, (field.empty() ? "" : "field '" + field + "': ") + "number out of range")};
    }
    return unexpected{located(source, line, "invalid TOML: " + std::string(e.description()))};
  } catch (const toml_internal_error& e) {
    return unexpected{located(source, 0, std::string("invalid TOML: ") + e.what())};
  }
  std::vector<entry> entries;
  for (const auto& [key, node] : doc) {
    entry e{std::string(key.str()), std::monostate{}, toml_type_name(node), node.is_table(),
            static_cast<int>(node.source().begin.line)};
    if (auto v = node.as_floating_point()) e.value = v->get();
    if (auto v = node.as_integer()) e.value = static_cast<double>(v->get());
    if (auto v = node.as_string()) e.value = v->get();
    entries.push_back(std::move(e));
  }
  // toml::table iterates in key order; report the first problem by position in the file.
  std::stable_sort(entries.begin(), entries.end(),
                   [](const entry& a, const entry& b) { return a.line < b.line; });
  return entries;
}

}  // namespace

std::optional<config_format> config_format_from_path(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".json") return config_format::json;
  if (ext == ".toml") return config_format::toml;
  return std::nullopt;
}

expected<policy_config, std::string> parse_policy_config(std::string_view text,
                                                         config_format format,
                                                         std::string_view source_name) {
  text = strip_utf8_bom(text);  // some editors start UTF-8 files with one
  auto entries = format == config_format::json ? json_entries(text, source_name)
                                               : toml_entries(text, source_name);
  if (!entries) return unexpected{entries.error()};
  return decode(*entries, source_name);
}

expected<policy_config, std::string> read_policy_config(const std::filesystem::path& path) {
  auto read = read_text_file(path);
  if (!read) return unexpected{read.error()};
  std::string text = std::move(*read);

  auto format = config_format_from_path(path);
  if (!format) {
    const auto body = strip_utf8_bom(text);
    const auto first = body.find_first_not_of(" \t\r\n");
    format = first != std::string_view::npos && body[first] == '{' ? config_format::json
                                                                    : config_format::toml;
  }
  auto config = parse_policy_config(text, *format, path.string());
  if (!config && *format == config_format::json) {
    // A bench result, a provenance or a session given as the policy: say what it is instead.
    if (auto what = misplaced_json_file(text, path.string(), json_file_role::policy)) return unexpected{*what};
  }
  return config;
}

}  // namespace kvscope
