#pragma once
// OCP FP8 E4M3 ("e4m3fn"): 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities,
// S.1111.111 is NaN, the largest finite value is 448 and the smallest subnormal 2^-9.
#include <bit>
#include <cstdint>

#include "quant/fp16.hpp"

namespace kvscope {

inline constexpr float e4m3_max = 448.0f;

constexpr float e4m3_to_f32(std::uint8_t code) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(code & 0x80u) << 24;
  const std::uint32_t exponent = (code >> 3) & 0xFu;
  const std::uint32_t mantissa = code & 0x7u;
  if (exponent == 0xF && mantissa == 0x7) return std::bit_cast<float>(sign | 0x7FC00000u);
  if (exponent == 0) {  // subnormal: mantissa * 2^-9, exact in float
    return std::bit_cast<float>(sign | std::bit_cast<std::uint32_t>(static_cast<float>(mantissa) *
                                                                    0.001953125f));
  }
  return std::bit_cast<float>(sign | ((exponent + 120) << 23) | (mantissa << 20));
}

// Rounds to nearest, ties to even, saturating to +-448 (never NaN). Precondition: not NaN.
// Integer-only, so it does not depend on the floating-point environment.
constexpr std::uint8_t f32_to_e4m3(float value) noexcept {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint32_t>((bits >> 24) & 0x80u);
  const std::uint32_t magnitude = bits & 0x7FFFFFFFu;
  std::uint32_t code = 0;
  if (magnitude >= 0x3C800000u) {  // >= 2^-6: normal e4m3; keep 3 mantissa bits, rebias by 120
    code = (magnitude + 0x7FFFFu + ((magnitude >> 20) & 1u)) >> 20;
    code -= 120u << 3;
    if (code > 0x7Eu) code = 0x7Eu;
  } else {  // subnormal e4m3: value * 2^9 rounded to an integer in [0, 8]
    const std::uint32_t exponent = magnitude >> 23;
    if (exponent >= 117) {  // below that, under half of the smallest subnormal
      const std::uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
      code = shift_right_rne(mantissa, static_cast<int>(141 - exponent));
    }
  }
  return static_cast<std::uint8_t>(sign | code);
}

}  // namespace kvscope
