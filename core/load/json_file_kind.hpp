#pragma once
// What a JSON file handed to the wrong option is: new users give a policy config or a
// `vllm bench serve` result as the load, or a tune provenance as the policy, and a parse error
// ("not a valid JSON object", "unknown key 'kvscope_version'") does not tell them what to do.
// Recognised by the top-level keys each writer always puts there.
#include <optional>
#include <string>
#include <string_view>

namespace kvscope {

enum class json_file_kind {
  policy_config,      // q8_threshold, ewma_alpha, family, ... (docs/policy.md)
  vllm_bench_result,  // input_lens beside ttfts or output_lens
  sweep_provenance,   // the sidecar kvscope-cli sweep writes beside its CSV
  tune_provenance,    // the sidecar kvscope-cli tune writes beside the config
  session,            // kvscope_session: a run to replay
};

struct json_file_info {
  json_file_kind kind;
  std::string load;  // the load a provenance or session names; "" when it names none
};

// The kind of the JSON document `text`, or nullopt when it is not one of them (or not JSON).
std::optional<json_file_info> classify_json_file(std::string_view text);

// Where the file was given: as the load or as the policy config.
enum class json_file_role { load, policy };

// Why `path`, of kind `info`, is not what `role` wants and how to use it instead, e.g.
// "r.json: a `vllm bench serve` result, not a trace; load it as bench:r.json". Empty when the
// kind is what the role wants (a policy config given as the policy).
std::string misplaced_json_file_message(const json_file_info& info, std::string_view path, json_file_role role);

// Both at once: the message for `text` read from `path`, or nullopt when its kind is unknown
// or right for the role.
std::optional<std::string> misplaced_json_file(std::string_view text, std::string_view path, json_file_role role);

}  // namespace kvscope
