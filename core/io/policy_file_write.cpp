// Writing policy files: the documented keys in the documented order, floats in their shortest
// exact form, and the provenance; what policy_file.cpp reads back to the same config.
#include "io/policy_file.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <variant>

#include <nlohmann/json.hpp>

#include "io/policy_family_fields.hpp"
#include "io/text_checks.hpp"
#include "kvscope_version.hpp"
#include "util/atomic_write.hpp"

namespace kvscope {
namespace {

// TOML floats need a decimal point or exponent; to_chars gives the shortest exact text.
std::string toml_float(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  std::string text(buf, ec == std::errc{} ? end : buf);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

// A TOML basic string in ASCII only, so that what we write we can read back (policy files are
// refused when they hold non-ASCII bytes).
std::string toml_string(std::string_view text) { return toml_ascii_string(text); }

// Each metric name once (as valid UTF-8), with its last value, at its first place. A table with
// a key twice would not read back, and names that differ only in bytes that are not UTF-8 are
// one name once those bytes are U+FFFD.
std::vector<std::pair<std::string, double>> unique_metrics(
    const std::vector<std::pair<std::string, double>>& metrics) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [raw_name, value] : metrics) {
    std::string name = valid_utf8(raw_name);
    const auto it = std::find_if(out.begin(), out.end(),
                                 [&](const auto& m) { return m.first == name; });
    if (it == out.end()) {
      out.emplace_back(std::move(name), value);
    } else {
      it->second = value;
    }
  }
  return out;
}

// The double whose shortest text is the float's shortest text, so writers print "0.8".
double pretty(float value) { return std::strtod(format_float(value).c_str(), nullptr); }

}  // namespace

std::string serialize_policy_config(const policy_config& c, config_format format,
                                    const policy_provenance* provenance) {
  const std::string tool_version =
      provenance && !provenance->tool_version.empty() ? provenance->tool_version : version_string;
  if (format == config_format::json) {
    nlohmann::ordered_json doc;
    doc["q8_threshold"] = pretty(c.q8_threshold);
    doc["q4_threshold"] = pretty(c.q4_threshold);
    doc["hysteresis"] = pretty(c.hysteresis);
    doc["ewma_alpha"] = pretty(c.ewma_alpha);
    doc["min_level"] = std::string(tag(c.min_level));
    doc["max_level"] = std::string(tag(c.max_level));
    if (c.q3_threshold) doc["q3_threshold"] = pretty(*c.q3_threshold);
    for (const auto& [key, value] : family_fields(c)) {
      std::visit([&, &key = key](const auto& v) { doc[key] = v; }, value);
    }
    if (provenance) {
      auto& p = doc["provenance"];
      p["tool"] = "kvscope";
      // Paths and names need not be UTF-8, JSON must (nlohmann's dump would throw).
      p["tool_version"] = valid_utf8(tool_version);
      p["load"] = valid_utf8(provenance->load);
      p["model"] = valid_utf8(provenance->model);
      p["budget_bytes"] = provenance->budget_bytes;
      if (!provenance->q4_format.empty()) {
        p["q4_format"] = provenance->q4_format;
        p["q4o_channels"] = provenance->q4o_channels;
      }
      p["metrics"] = nlohmann::ordered_json::object();
      for (const auto& [name, value] : unique_metrics(provenance->metrics)) p["metrics"][name] = value;
    }
    if (reaches_q3(c)) doc["provenance"]["note"] = q3_export_note;  // the reference ignores provenance
    return doc.dump(2) + "\n";
  }
  // Written by hand: toml++ prints doubles with 17 digits, and the order should be the documented one.
  std::ostringstream out;
  if (reaches_q3(c)) out << "# " << q3_export_note << "\n";
  out << "q8_threshold = " << toml_float(pretty(c.q8_threshold)) << "\n"
      << "q4_threshold = " << toml_float(pretty(c.q4_threshold)) << "\n"
      << "hysteresis = " << toml_float(pretty(c.hysteresis)) << "\n"
      << "ewma_alpha = " << toml_float(pretty(c.ewma_alpha)) << "\n"
      << "min_level = " << toml_string(tag(c.min_level)) << "\n"
      << "max_level = " << toml_string(tag(c.max_level)) << "\n";
  if (c.q3_threshold) out << "q3_threshold = " << toml_float(pretty(*c.q3_threshold)) << "\n";
  for (const auto& [key, value] : family_fields(c)) {
    out << key << " = ";
    if (const auto* n = std::get_if<std::uint64_t>(&value)) {
      out << *n << "\n";
    } else {
      out << toml_string(std::get<std::string>(value)) << "\n";
    }
  }
  if (provenance) {
    out << "\n[provenance]\n"
        << "tool = " << toml_string("kvscope") << "\n"
        << "tool_version = " << toml_string(tool_version) << "\n"
        << "load = " << toml_string(provenance->load) << "\n"
        << "model = " << toml_string(provenance->model) << "\n"
        << "budget_bytes = " << provenance->budget_bytes << "\n";
    if (!provenance->q4_format.empty()) {
      out << "q4_format = " << toml_string(provenance->q4_format) << "\n"
          << "q4o_channels = " << provenance->q4o_channels << "\n";
    }
    out << "\n[provenance.metrics]\n";
    for (const auto& [name, value] : unique_metrics(provenance->metrics)) {
      out << toml_string(name) << " = " << toml_float(value) << "\n";
    }
  }
  return out.str();
}

expected<void, std::string> write_policy_config(const std::filesystem::path& path,
                                                const policy_config& config,
                                                const policy_provenance* provenance, export_check check) {
  if (check == export_check::strict && reaches_q3(config)) {
    return unexpected{path.string() + ": not exported: the policy reaches q3, and the reference runtime stops at q4 "
                                      "(--strict refuses what it cannot run)"};
  }
  const auto format = config_format_from_path(path).value_or(config_format::json);
  return write_file_atomically(path, serialize_policy_config(config, format, provenance));
}

}  // namespace kvscope
