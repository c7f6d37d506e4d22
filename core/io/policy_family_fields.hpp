#pragma once
// The policy file keys of the families beyond the reference runtime's (docs/policy.md, "The
// reference runtime" and "Policy families"): `family` and each family's parameters. A config of
// the ewma family has none, so its file is exactly the reference runtime's format.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "policy/policy_config.hpp"

namespace kvscope {

// True for "family" and every family parameter key.
bool is_family_key(std::string_view key);

// Sets `key` (is_family_key) from its value, a number or a string (both null when it is of
// another type, `type_name`). The error names the key: "'q8_age_tokens' must be a whole number
// in [0, 2147483648], got 1.5"; "'sink_tokens' is a parameter of the sinks_recent family, not of
// static" when the config's family (set first) has no use for it.
std::optional<std::string> apply_family_key(policy_config& config, std::string_view key,
                                            const double* number, const std::string* text,
                                            std::string_view type_name);

// What a file holds beyond the reference's fields, in order: nothing for ewma; `family` and the
// family's parameters otherwise (a number or a level tag).
using family_field_value = std::variant<std::uint64_t, std::string>;
std::vector<std::pair<std::string, family_field_value>> family_fields(const policy_config& config);

}  // namespace kvscope
