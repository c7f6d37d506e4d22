#pragma once
// Precision levels of the KV cache, in order of compactness (docs/policy.md).
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kvscope {

enum class precision : std::uint8_t { fp16 = 0, q8 = 1, fp8 = 2, q4 = 3 };

inline constexpr std::array<precision, 4> all_precisions = {precision::fp16, precision::q8,
                                                            precision::fp8, precision::q4};

// Ordinal: 0 (fp16, least compact) .. 3 (q4, most compact).
constexpr int ordinal(precision p) noexcept { return static_cast<int>(p); }

// Precondition: 0 <= n <= 3.
constexpr precision precision_from_ordinal(int n) noexcept { return static_cast<precision>(n); }

// Lower-case tag used in configs, CLIs and metrics: "fp16", "q8", "fp8", "q4".
std::string_view tag(precision p) noexcept;

// Parses a tag exactly as `tag` writes it; nullopt for anything else.
std::optional<precision> parse_precision(std::string_view tag) noexcept;

// Nominal memory factor vs fp16, ignoring quantization scales: 1, 0.5, 0.5, 0.25.
constexpr double nominal_factor(precision p) noexcept {
  constexpr double factors[] = {1.0, 0.5, 0.5, 0.25};
  return factors[ordinal(p)];
}

}  // namespace kvscope
