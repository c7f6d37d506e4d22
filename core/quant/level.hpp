#pragma once
// Precision levels of the KV cache, in order of compactness (docs/policy.md).
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kvscope {

// q3 (quant/q3.hpp) is kvscope's own level: the reference runtime stops at q4 (docs/policy.md,
// "The reference runtime"), so a policy reaches q3 only when it asks for it by name.
enum class precision : std::uint8_t { fp16 = 0, q8 = 1, fp8 = 2, q4 = 3, q3 = 4 };

// Levels, indexed in the cache's order: fp16, q8, fp8, q4, q3.
inline constexpr std::size_t kv_level_count = 5;

inline constexpr std::array<precision, kv_level_count> all_precisions = {
    precision::fp16, precision::q8, precision::fp8, precision::q4, precision::q3};

// Ordinal: 0 (fp16, least compact) .. 4 (q3, most compact).
constexpr int ordinal(precision p) noexcept { return static_cast<int>(p); }

// Precondition: 0 <= n < kv_level_count.
constexpr precision precision_from_ordinal(int n) noexcept { return static_cast<precision>(n); }

// Lower-case tag used in configs, CLIs and metrics: "fp16", "q8", "fp8", "q4", "q3".
std::string_view tag(precision p) noexcept;

// Parses a tag exactly as `tag` writes it; nullopt for anything else.
std::optional<precision> parse_precision(std::string_view tag) noexcept;

// Nominal memory factor vs fp16, ignoring quantization scales: 1, 0.5, 0.5, 0.25, 0.1875.
constexpr double nominal_factor(precision p) noexcept {
  constexpr double factors[] = {1.0, 0.5, 0.5, 0.25, 0.1875};
  return factors[ordinal(p)];
}

}  // namespace kvscope
