#include "io/policy_family_fields.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "util/quote_text.hpp"

namespace kvscope {
namespace {

constexpr double max_tokens = 2147483648.0;  // 2^31, as the options' token ranges

struct token_field {
  std::string_view key;
  std::uint32_t policy_config::*member;
  policy_family family;
};
constexpr token_field token_fields[] = {
    {"q8_age_tokens", &policy_config::q8_age_tokens, policy_family::age},
    {"q4_age_tokens", &policy_config::q4_age_tokens, policy_family::age},
    {"sink_tokens", &policy_config::sink_tokens, policy_family::sinks_recent},
    {"recent_tokens", &policy_config::recent_tokens, policy_family::sinks_recent},
};

bool uses_fixed_level(policy_family f) {
  return f == policy_family::fixed || f == policy_family::sinks_recent;
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

bool is_family_key(std::string_view key) {
  return key == "family" || key == "fixed_level" || key == "q3_age_tokens" ||
         std::any_of(std::begin(token_fields), std::end(token_fields),
                     [&](const token_field& f) { return f.key == key; });
}

std::optional<std::string> apply_family_key(policy_config& c, std::string_view key,
                                            const double* number, const std::string* text,
                                            std::string_view type_name) {
  if (key == "family") {
    if (!text) return quote_for_message(key) + " must be a string, got " + std::string(type_name);
    const auto family = parse_policy_family(*text);
    if (!family) {
      return quote_for_message(key) + ": unknown family " + quote_for_message(*text) +
             " (expected ewma, static, age or sinks_recent)";
    }
    c.family = *family;
    return std::nullopt;
  }
  const std::string family(family_name(c.family));
  if (key == "fixed_level") {
    if (!uses_fixed_level(c.family)) {
      return quote_for_message(key) + " is a parameter of the static and sinks_recent families, not of " + family;
    }
    if (!text) return quote_for_message(key) + " must be a level tag string, got " + std::string(type_name);
    const auto level = parse_precision(*text);
    if (!level) {
      return quote_for_message(key) + ": unknown level " + quote_for_message(*text) +
             " (expected fp16, q8, fp8, q4 or q3)";
    }
    c.fixed_level = *level;
    return std::nullopt;
  }
  // q3_age_tokens is optional (off unless set), so it has no member of token_fields' type.
  const bool q3_age = key == "q3_age_tokens";
  const auto f = std::find_if(std::begin(token_fields), std::end(token_fields),
                              [&](const token_field& t) { return t.key == key; });
  if (f == std::end(token_fields) && !q3_age) return "unknown key " + quote_for_message(key);
  const policy_family owner = q3_age ? policy_family::age : f->family;
  if (owner != c.family) {
    return quote_for_message(key) + " is a parameter of the " + std::string(family_name(owner)) +
           " family, not of " + family;
  }
  const std::string range = quote_for_message(key) + " must be a whole number in [0, 2147483648]";
  if (!number) return range + ", got " + std::string(type_name);
  if (!(*number >= 0 && *number <= max_tokens) || std::floor(*number) != *number) {
    return range + ", got " + number_text(*number);
  }
  const auto tokens = static_cast<std::uint32_t>(*number);
  if (q3_age) {
    c.q3_age_tokens = tokens;
  } else {
    c.*(f->member) = tokens;
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, family_field_value>> family_fields(const policy_config& c) {
  std::vector<std::pair<std::string, family_field_value>> out;
  if (c.family == policy_family::ewma) return out;
  out.emplace_back("family", std::string(family_name(c.family)));
  for (const auto& f : token_fields) {
    if (f.family == c.family) out.emplace_back(std::string(f.key), std::uint64_t{c.*(f.member)});
  }
  if (c.family == policy_family::age && c.q3_age_tokens) {
    out.emplace_back("q3_age_tokens", std::uint64_t{*c.q3_age_tokens});
  }
  if (uses_fixed_level(c.family)) out.emplace_back("fixed_level", std::string(tag(c.fixed_level)));
  return out;
}

}  // namespace kvscope
