#pragma once
// Policy config files, JSON or TOML, with exactly the field names of docs/policy.md.
// An optional `provenance` object/table records where a tuned config came from; readers ignore it.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "policy/policy_config.hpp"
#include "util/expected.hpp"

namespace kvscope {

enum class config_format { json, toml };

struct policy_provenance {
  std::string tool_version;  // filled with kvscope's version when empty
  std::string load;          // load spec or trace path the policy was tuned on
  std::string model;         // model preset name
  std::uint64_t budget_bytes = 0;
  // How the q4 level stored its blocks when not as plain q4 ("q4o", with q4o_channels): the
  // figures below were measured so; empty (plain q4) writes nothing, as before the format.
  std::string q4_format;
  std::uint32_t q4o_channels = 0;
  std::vector<std::pair<std::string, double>> metrics;  // achieved figures, in order
};

// ".json" → json, ".toml" → toml, anything else → nullopt.
std::optional<config_format> config_format_from_path(const std::filesystem::path& path);

// Parses a config document. Errors are one line, "SOURCE[:LINE]: what is wrong", and name the
// offending key: syntax errors, unknown keys, wrong types, unknown level tags and the validation
// reason of an out-of-range or NaN value. Missing keys take their default value.
expected<policy_config, std::string> parse_policy_config(std::string_view text,
                                                         config_format format,
                                                         std::string_view source_name);

// Reads a file; the format comes from the extension, or from the first non-blank character
// ('{' is JSON) when the extension says nothing.
expected<policy_config, std::string> read_policy_config(const std::filesystem::path& path);

// What a file of a policy that reaches q3 (reaches_q3) says of it: the reference runtime stops at
// q4, so the file is kvscope's own. JSON keeps it as provenance.note, TOML as a comment on top.
inline constexpr std::string_view q3_export_note =
    "this policy uses q3, kvscope's 3-bit level: the reference runtime stops at q4 and cannot run it";

// How an export treats a policy that reaches q3: written with q3_export_note, or refused.
enum class export_check : std::uint8_t { note, strict };

// The document text; float fields are written in their shortest exact form (0.8, not 0.800000011).
std::string serialize_policy_config(const policy_config& config, config_format format,
                                    const policy_provenance* provenance = nullptr);

// Writes atomically (temp file + rename) in the format the extension names (JSON by default).
// With export_check::strict a policy that reaches q3 is refused, naming the path, and nothing
// is written.
expected<void, std::string> write_policy_config(const std::filesystem::path& path,
                                                const policy_config& config,
                                                const policy_provenance* provenance = nullptr,
                                                export_check check = export_check::note);

}  // namespace kvscope
