#pragma once
// The policy's configuration, its presets and its validation (docs/policy.md, exact).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quant/level.hpp"

namespace kvscope {

// The numeric fields are 32-bit floats on purpose: the reference runtime stores them so, and
// the controller widens them to double before comparing (0.2f is 0.20000000298023224).
struct policy_config {
  float q8_threshold = 0.80f;
  float q4_threshold = 0.95f;
  float hysteresis = 0.05f;
  float ewma_alpha = 0.20f;
  precision min_level = precision::fp16;
  precision max_level = precision::q4;

  friend bool operator==(const policy_config&, const policy_config&) = default;
};

// Prefix the reference puts before every validation reason.
inline constexpr std::string_view invalid_policy_prefix = "invalid kv-cache policy configuration: ";

// First failing rule in the reference's order, e.g. "q4_threshold must be >= q8_threshold";
// nullopt when the config is valid. NaN fails its range check.
std::optional<std::string> validate(const policy_config& config);

// The full message the reference prints: invalid_policy_prefix + reason.
std::string invalid_policy_message(std::string_view reason);

// Named presets: "default", "fp16_only", "aggressive".
std::optional<policy_config> policy_preset(std::string_view name);
std::vector<std::string_view> policy_preset_names();

// One line: "q8_threshold=0.8 q4_threshold=0.95 hysteresis=0.05 ewma_alpha=0.2 levels=fp16..q4".
std::string describe(const policy_config& config);

// Shortest text that reads back as the same float ("0.8" for 0.8f).
std::string format_float(float value);

}  // namespace kvscope
