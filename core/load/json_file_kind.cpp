#include "load/json_file_kind.hpp"

#include <array>

#include <nlohmann/json.hpp>

namespace kvscope {
namespace {

using json = nlohmann::json;

std::string string_at(const json& j, std::string_view key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Sweep and tune provenances and sessions keep the load as {"spec": ...}.
std::string load_spec_of(const json& j) {
  const auto it = j.find("load");
  return it != j.end() && it->is_object() ? string_at(*it, "spec") : std::string();
}

// Any key only a policy file holds (one misspelt key among them is still a policy file).
bool is_policy_config(const json& j) {
  static constexpr std::array<std::string_view, 14> keys = {
      "q8_threshold", "q4_threshold",  "hysteresis",    "ewma_alpha",   "min_level",     "max_level",
      "family",       "fixed_level",   "q8_age_tokens", "q4_age_tokens", "sink_tokens", "recent_tokens",
      "q3_threshold", "q3_age_tokens"};
  for (const auto k : keys) {
    if (j.contains(k)) return true;
  }
  return false;
}

// "run.csv.provenance.json" → "run.csv": the file a provenance sidecar vouches for.
std::string sidecar_owner(std::string_view path) {
  constexpr std::string_view suffix = ".provenance.json";
  return path.ends_with(suffix) ? std::string(path.substr(0, path.size() - suffix.size())) : std::string();
}

std::string what_it_is(const json_file_info& info, std::string_view path) {
  const std::string owner = sidecar_owner(path);
  switch (info.kind) {
    case json_file_kind::policy_config: return "a kvscope policy config";
    case json_file_kind::vllm_bench_result: return "a `vllm bench serve` result";
    case json_file_kind::sweep_provenance:
      return "the provenance of a sweep CSV" + (owner.empty() ? std::string() : " (" + owner + ")");
    case json_file_kind::tune_provenance: return "the provenance of a tuned policy config";
    case json_file_kind::session: return "a kvscope session (a run to replay)";
  }
  return "a JSON file";
}

}  // namespace

std::optional<json_file_info> classify_json_file(std::string_view text) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  const std::string tool = string_at(j, "tool");
  if (j.contains("kvscope_session")) return json_file_info{json_file_kind::session, load_spec_of(j)};
  if (tool == "kvscope-cli sweep" || string_at(j, "format").starts_with("kvscope sweep provenance")) {
    return json_file_info{json_file_kind::sweep_provenance, load_spec_of(j)};
  }
  if (tool == "kvscope-cli tune") return json_file_info{json_file_kind::tune_provenance, load_spec_of(j)};
  if (j.contains("input_lens") && (j.contains("ttfts") || j.contains("output_lens"))) {
    return json_file_info{json_file_kind::vllm_bench_result, ""};
  }
  if (is_policy_config(j)) return json_file_info{json_file_kind::policy_config, ""};
  return std::nullopt;
}

std::string misplaced_json_file_message(const json_file_info& info, std::string_view path, json_file_role role) {
  if (role == json_file_role::policy && info.kind == json_file_kind::policy_config) return "";
  const std::string file(path);
  std::string out = file + ": " + what_it_is(info, path) +
                    (role == json_file_role::load ? ", not a trace" : ", not a policy config");
  switch (info.kind) {
    case json_file_kind::policy_config:
      return out + "; give it as the policy (--policy " + file + ") and a trace or gen: spec as the load";
    case json_file_kind::vllm_bench_result:
      return out + "; load it as bench:" + file + " (its lengths, sent as the benchmark sent them)";
    case json_file_kind::session:
      out += "; replay it with kvscope-cli replay --session " + file;
      break;
    case json_file_kind::tune_provenance:
      if (role == json_file_role::policy && !sidecar_owner(path).empty()) {
        out += "; the tuned config is " + sidecar_owner(path);
      }
      break;
    case json_file_kind::sweep_provenance: break;
  }
  if (role == json_file_role::load && !info.load.empty()) out += "; its load was " + info.load;
  return out;
}

std::optional<std::string> misplaced_json_file(std::string_view text, std::string_view path, json_file_role role) {
  const auto info = classify_json_file(text);
  if (!info) return std::nullopt;
  auto message = misplaced_json_file_message(*info, path, role);
  if (message.empty()) return std::nullopt;
  return message;
}

}  // namespace kvscope
