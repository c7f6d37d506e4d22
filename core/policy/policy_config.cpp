#include "policy/policy_config.hpp"

#include <charconv>

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
  return std::nullopt;
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
    return policy_config{0.50f, 0.80f, 0.05f, 0.30f, precision::q8, precision::q4};
  }
  return std::nullopt;
}

std::vector<std::string_view> policy_preset_names() { return {"default", "fp16_only", "aggressive"}; }

std::string format_float(float value) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc{} ? std::string(buf, end) : std::string("?");
}

std::string describe(const policy_config& c) {
  return "q8_threshold=" + format_float(c.q8_threshold) +
         " q4_threshold=" + format_float(c.q4_threshold) +
         " hysteresis=" + format_float(c.hysteresis) +
         " ewma_alpha=" + format_float(c.ewma_alpha) + " levels=" + std::string(tag(c.min_level)) +
         ".." + std::string(tag(c.max_level));
}

}  // namespace kvscope
