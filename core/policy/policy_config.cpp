#include "policy/policy_config.hpp"


#include "util/number_text.hpp"

namespace kvscope {
namespace {

// Written so that NaN fails: every comparison with NaN is false.
bool in_unit_range(float v) { return v >= 0.0f && v <= 1.0f; }

}  // namespace

std::optional<std::string> validate(const policy_config& c) {
  if (!in_unit_range(c.q8_threshold)) return "q8_threshold must be in [0.0, 1.0]";
  if (!in_unit_range(c.q4_threshold)) return "q4_threshold must be in [0.0, 1.0]";
  if (!(c.q4_threshold >= c.q8_threshold)) return "q4_threshold must be >= q8_threshold";
  if (!in_unit_range(c.hysteresis)) return "hysteresis must be in [0.0, 1.0]";
  if (!in_unit_range(c.ewma_alpha)) return "ewma_alpha must be in [0.0, 1.0]";
  if (ordinal(c.min_level) > ordinal(c.max_level)) {
    return "min_level must be <= max_level (less compact)";
  }
  // After the reference runtime's rules (docs/policy.md, "The reference runtime"), so that an
  // ewma config fails exactly as it does there.
  if (c.family == policy_family::age && c.q4_age_tokens < c.q8_age_tokens) {
    return "q4_age_tokens must be >= q8_age_tokens";
  }
  if (c.q3_threshold) {
    if (!in_unit_range(*c.q3_threshold)) return "q3_threshold must be in [0.0, 1.0]";
    if (!(*c.q3_threshold >= c.q4_threshold)) return "q3_threshold must be >= q4_threshold";
    if (c.max_level != precision::q3) return "q3_threshold needs max_level q3";
  }
  if (c.q3_age_tokens && *c.q3_age_tokens < c.q4_age_tokens) return "q3_age_tokens must be >= q4_age_tokens";
  return std::nullopt;
}

bool reaches_q3(const policy_config& c) noexcept {
  switch (c.family) {
    case policy_family::ewma: return c.max_level == precision::q3 && (c.q3_threshold || c.min_level == precision::q3);
    case policy_family::fixed:
    case policy_family::sinks_recent: return c.fixed_level == precision::q3;
    case policy_family::age: return c.q3_age_tokens.has_value();
  }
  return false;
}

std::string invalid_policy_message(std::string_view reason) {
  return std::string(invalid_policy_prefix) + std::string(reason);
}

std::optional<policy_config> policy_preset(std::string_view name) {
  if (name == "default") return policy_config{};
  if (name == "fp16_only") {
    policy_config c;
    c.max_level = precision::fp16;
    return c;
  }
  if (name == "aggressive") {
    policy_config c;
    c.q8_threshold = 0.50f;
    c.q4_threshold = 0.80f;
    c.ewma_alpha = 0.30f;
    c.min_level = precision::q8;
    return c;
  }
  return std::nullopt;
}

std::vector<std::string_view> policy_preset_names() { return {"default", "fp16_only", "aggressive"}; }

std::string format_float(float value) { return shortest(value); }

std::string_view family_name(policy_family family) {
  switch (family) {
    case policy_family::ewma: return "ewma";
    case policy_family::fixed: return "static";
    case policy_family::age: return "age";
    case policy_family::sinks_recent: return "sinks_recent";
  }
  return "?";
}

std::optional<policy_family> parse_policy_family(std::string_view name) {
  for (auto f : {policy_family::ewma, policy_family::fixed, policy_family::age,
                 policy_family::sinks_recent}) {
    if (name == family_name(f)) return f;
  }
  if (name == "sinks+recent") return policy_family::sinks_recent;
  return std::nullopt;
}

std::vector<std::string> policy_family_names() {
  return {"ewma", "static", "age", "sinks_recent"};
}

std::string describe(const policy_config& c) {
  const std::string family = "family=" + std::string(family_name(c.family));
  const std::string level = " fixed_level=" + std::string(tag(c.fixed_level));
  switch (c.family) {
    case policy_family::ewma: break;
    case policy_family::fixed: return family + level;
    case policy_family::age:
      return family + " q8_age_tokens=" + std::to_string(c.q8_age_tokens) +
             " q4_age_tokens=" + std::to_string(c.q4_age_tokens) +
             (c.q3_age_tokens ? " q3_age_tokens=" + std::to_string(*c.q3_age_tokens) : "");
    case policy_family::sinks_recent:
      return family + " sink_tokens=" + std::to_string(c.sink_tokens) +
             " recent_tokens=" + std::to_string(c.recent_tokens) + level;
  }
  return "q8_threshold=" + format_float(c.q8_threshold) +
         " q4_threshold=" + format_float(c.q4_threshold) +
         " hysteresis=" + format_float(c.hysteresis) +
         " ewma_alpha=" + format_float(c.ewma_alpha) + " levels=" + std::string(tag(c.min_level)) +
         ".." + std::string(tag(c.max_level)) +
         (c.q3_threshold ? " q3_threshold=" + format_float(*c.q3_threshold) : "");
}

}  // namespace kvscope
