#pragma once
// IEEE 754 binary16 ("fp16") kept as its 16 bits, with exact scalar conversions.
// f32 -> fp16 rounds to nearest, ties to even, exactly as F16C's vcvtps2ph with imm 0, and NaNs
// become quiet NaNs keeping the payload's top bits, also as F16C does: the scalar and AVX2 kernels
// must agree bit for bit (tests compare all 65536 halves and millions of floats).
#include <bit>
#include <cstdint>

namespace kvscope {

using fp16_bits = std::uint16_t;

constexpr float fp16_to_f32(fp16_bits h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1Fu;
  std::uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1F) {  // inf, or NaN made quiet
    return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13) |
                                (mantissa != 0 ? 0x00400000u : 0u));
  }
  if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return std::bit_cast<float>(sign);
  // Subnormal half: shift the leading 1 up to bit 10, the implicit bit of a normal float.
  const int shift = std::countl_zero(mantissa) - 21;
  mantissa <<= shift;
  const auto f32_exponent = static_cast<std::uint32_t>(113 - shift);
  return std::bit_cast<float>(sign | (f32_exponent << 23) | ((mantissa & 0x3FFu) << 13));
}

// Rounds `value >> shift` to nearest, ties to even (0 < shift < 32).
constexpr std::uint32_t shift_right_rne(std::uint32_t value, int shift) noexcept {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t rest = value & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1u) != 0)) ? 1u : 0u);
}

constexpr fp16_bits f32_to_fp16(float value) noexcept {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint32_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7FFFFFFFu;
  std::uint32_t result = 0;
  if (magnitude > 0x7F800000u) {  // NaN: quiet, top payload bits kept
    result = 0x7E00u | ((magnitude >> 13) & 0x3FFu);
  } else if (magnitude >= 0x477FF000u) {  // >= 65520 rounds to infinity
    result = 0x7C00u;
  } else if (magnitude >= 0x38800000u) {  // normal half: rebias the exponent, round 13 bits off
    result = shift_right_rne(magnitude - 0x38000000u, 13);
  } else {  // subnormal half (or zero): value * 2^24 rounded to an integer
    const std::uint32_t exponent = magnitude >> 23;
    if (exponent >= 102) {  // below that, the value is under half of the smallest subnormal
      const std::uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
      result = shift_right_rne(mantissa, static_cast<int>(126 - exponent));
    }
  }
  return static_cast<fp16_bits>(sign | result);
}

}  // namespace kvscope
