#pragma once
// The policy's configuration, its presets and its validation (docs/policy.md, exact).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quant/level.hpp"

namespace kvscope {

// Which rule picks the level of each cold block (docs/policy.md, "Policy families"). `ewma` is
// the controller of the reference runtime, the one whose policy files kvscope writes
// (docs/policy.md, "The reference runtime"); the others are kvscope's own and have no
// controller state.
enum class policy_family : std::uint8_t {
  ewma,          // one level for every cold block, from the EWMA/hysteresis controller
  fixed,         // "static": every cold block at fixed_level
  age,           // by age: q8 from q8_age_tokens on, q4 from q4_age_tokens on (q3 from q3_age_tokens)
  sinks_recent,  // the first sink_tokens and last recent_tokens stay fp16, the rest fixed_level
};

// "ewma", "static", "age", "sinks_recent".
std::string_view family_name(policy_family family);
// Those names, and "sinks+recent" (docs/policy.md reads it as sinks_recent); nullopt for
// anything else.
std::optional<policy_family> parse_policy_family(std::string_view name);
std::vector<std::string> policy_family_names();

// The numeric fields are 32-bit floats on purpose: the reference runtime stores them so, and
// the controller widens them to double before comparing (0.2f is 0.20000000298023224).
struct policy_config {
  float q8_threshold = 0.80f;
  float q4_threshold = 0.95f;
  float hysteresis = 0.05f;
  float ewma_alpha = 0.20f;
  precision min_level = precision::fp16;
  precision max_level = precision::q4;
  // Beyond the reference: the family and its parameters. The defaults (ewma) leave everything
  // above exactly as the reference has it, and files of the ewma family carry none of these.
  policy_family family = policy_family::ewma;
  precision fixed_level = precision::q8;  // static, sinks_recent
  std::uint32_t q8_age_tokens = 512;      // age: N
  std::uint32_t q4_age_tokens = 2048;     // age: M (>= N)
  std::uint32_t sink_tokens = 64;         // sinks_recent: S
  std::uint32_t recent_tokens = 512;      // sinks_recent: R
  // kvscope's q3 level (quant/level.hpp), which the reference runtime lacks: off unless set, so
  // that every config without them behaves as the reference's. q3_threshold: the ewma family
  // goes to q3 from this EWMA on (with max_level q3); q3_age_tokens: the age family's Q (>= M).
  std::optional<float> q3_threshold;
  std::optional<std::uint32_t> q3_age_tokens;

  friend bool operator==(const policy_config&, const policy_config&) = default;
};

// Prefix the reference puts before every validation reason.
inline constexpr std::string_view invalid_policy_prefix = "invalid kv-cache policy configuration: ";

// First failing rule in the reference's order, e.g. "q4_threshold must be >= q8_threshold",
// then the family's own rules ("q4_age_tokens must be >= q8_age_tokens"); nullopt when the
// config is valid. NaN fails its range check.
std::optional<std::string> validate(const policy_config& config);

// The full message the reference prints: invalid_policy_prefix + reason.
std::string invalid_policy_message(std::string_view reason);

// True when the config may put a block at q3, a level the reference runtime lacks: what an
// export notes, or refuses when strict.
bool reaches_q3(const policy_config& config) noexcept;

// Named presets: "default", "fp16_only", "aggressive".
std::optional<policy_config> policy_preset(std::string_view name);
std::vector<std::string_view> policy_preset_names();

// One line: "q8_threshold=0.8 q4_threshold=0.95 hysteresis=0.05 ewma_alpha=0.2 levels=fp16..q4"
// for the ewma family; the family and its parameters otherwise ("family=age q8_age_tokens=512
// q4_age_tokens=2048").
std::string describe(const policy_config& config);

// Shortest text that reads back as the same float ("0.8" for 0.8f).
std::string format_float(float value);

}  // namespace kvscope
