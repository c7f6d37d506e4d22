#include "sweep/sweep_provenance.hpp"

#include <algorithm>
#include <optional>

#include <nlohmann/json.hpp>

#include "kvscope_version.hpp"
#include "run/option_table.hpp"
#include "sweep/config_apply.hpp"
#include "sweep/run_reuse.hpp"

namespace kvscope {
namespace {

using json = nlohmann::ordered_json;

// Bumped when the sidecar's meaning changes: a file of another format is another sweep.
constexpr const char* provenance_format = "kvscope sweep provenance 1";

bool every_config_sets(const sweep_plan& plan, const std::string& column) {
  return std::all_of(plan.configs.begin(), plan.configs.end(),
                     [&](const sweep_config& c) { return find_setting(c, column) != nullptr; });
}

// Whether every config replaces `spec`'s base value: it sets the option, or (a policy field)
// sets the whole policy by preset or policy file.
bool swept(const sweep_plan& plan, const option_spec& spec) {
  for (const auto& column : plan.columns) {
    if (!every_config_sets(plan, column)) continue;
    if (find_sweep_option(column) == &spec) return true;
    if ((column == "preset" || column == "policy") && is_policy_setting(spec.flag)) return true;
  }
  return false;
}

expected<json, std::string> parse(std::string_view text, std::string_view source) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("format") || !j["format"].is_string()) {
    return unexpected{std::string(source) + ": not a sweep provenance (kvscope-cli sweep writes one)"};
  }
  return j;
}

std::string text_at(const json& j, std::string_view a, std::string_view b = {}) {
  const json* at = &j;
  for (auto key : {a, b}) {
    if (key.empty()) break;
    if (!at->is_object() || !at->contains(std::string(key))) return "(none)";
    at = &(*at)[std::string(key)];
  }
  return at->is_string() ? at->get<std::string>() : at->dump();
}

// An option's value in a provenance's "base": as recorded, or the default for an option recorded
// only when set (option_spec::omitted_at_default); nullopt when the base cannot say.
std::optional<std::string> base_text(const json& base, const std::string& name) {
  if (base.contains(name)) return text_at(base, name);
  const option_spec* spec = find_option(name);
  if (!spec || !spec->omitted_at_default) return std::nullopt;
  return format_option_value(*spec, spec->get(engine_options{}));
}

// The load as a person names it: "trace.csv (sha256:0123456789ab…)".
std::string load_text(const json& j) {
  std::string checksum = text_at(j, "load", "checksum");
  if (checksum.size() > 19) checksum = checksum.substr(0, 19) + "…";
  return text_at(j, "load", "spec") + " (" + checksum + ")";
}

}  // namespace

std::filesystem::path sweep_provenance_path(const std::filesystem::path& csv) {
  return csv.string() + ".provenance.json";
}

std::string sweep_provenance_json(const run_description& base, const sweep_plan& plan, std::string_view checksum,
                                  const std::vector<std::string>& typed) {
  json j;
  j["format"] = provenance_format;
  j["kvscope_version"] = version_string;
  j["tool"] = "kvscope-cli sweep";
  j["load"] = {{"spec", base.load_spec},
               {"checksum", std::string(checksum)},
               {"format", std::string(format_name(base.format))},
               {"skip_bad_rows", base.skip_bad_rows}};
  j["base"] = json::object();
  for (const auto& spec : option_table()) {
    if (!spec.get || swept(plan, spec) || !option_recorded(spec, base.options)) continue;
    j["base"][std::string(spec.flag)] = format_option_value(spec, spec.get(base.options));
  }
  j["options_typed"] = typed;
  // A load path need not be UTF-8: replace what is not rather than fail.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string reuse_note(std::size_t repeats, std::size_t configs) {
  return std::to_string(repeats) + " of " + std::to_string(configs) + " configs reused an identical run: " +
         std::string(reuse_reason);
}

std::string sweep_provenance_with_reuse(std::string_view provenance, std::size_t repeats, std::size_t configs) {
  json j = json::parse(provenance, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::string(provenance);
  j["reuse"] = {{"configs", configs}, {"reused", repeats}, {"note", reuse_note(repeats, configs)}};
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string sweep_provenance_without_reuse(std::string_view provenance) {
  json j = json::parse(provenance, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("reuse")) return std::string(provenance);
  j.erase("reuse");
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

expected<std::vector<provenance_difference>, std::string> compare_provenance(std::string_view first,
                                                                             std::string_view first_source,
                                                                             std::string_view second,
                                                                             std::string_view second_source) {
  auto a = parse(first, first_source);
  if (!a) return unexpected{a.error()};
  auto b = parse(second, second_source);
  if (!b) return unexpected{b.error()};
  std::vector<provenance_difference> out;
  const auto compare = [&](std::string what, const std::string& x, const std::string& y) {
    if (x != y) out.push_back({std::move(what), x, y});
  };
  compare("sweep file format", text_at(*a, "format"), text_at(*b, "format"));
  compare("kvscope version", text_at(*a, "kvscope_version"), text_at(*b, "kvscope_version"));
  // The bytes name a trace, not its path: a copy elsewhere (another node's mount) is the same load.
  if (text_at(*a, "load", "checksum") != text_at(*b, "load", "checksum")) {
    out.push_back({"load", load_text(*a), load_text(*b)});
  }
  compare("load format", text_at(*a, "load", "format"), text_at(*b, "load", "format"));
  compare("skip_bad_rows", text_at(*a, "load", "skip_bad_rows"), text_at(*b, "load", "skip_bad_rows"));
  const json& base_a = (*a)["base"];
  const json& base_b = (*b)["base"];
  if (base_a.is_object() && base_b.is_object()) {
    for (const auto& item : base_a.items()) {
      const std::string& name = item.key();
      if (const auto other = base_text(base_b, name)) compare(name, text_at(base_a, name), *other);
    }
    for (const auto& item : base_b.items()) {  // what only the second recorded
      const std::string& name = item.key();
      if (base_a.contains(name)) continue;
      if (const auto other = base_text(base_a, name)) compare(name, *other, text_at(base_b, name));
    }
  }
  return out;
}

std::string describe_differences(const std::vector<provenance_difference>& differences, std::string_view first,
                                 std::string_view second) {
  std::string out;
  for (const auto& d : differences) {
    if (!out.empty()) out += "; ";
    out += d.what + ": " + std::string(first) + " made with " + d.first + ", " + std::string(second) + " with " + d.second;
  }
  return out;
}

}  // namespace kvscope
