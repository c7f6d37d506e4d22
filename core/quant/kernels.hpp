#pragma once
// Quantization kernels: fp16 -> q8 / fp8 / q4 and back to f32, plus bulk f32 <-> fp16.
// Formats and byte counts are in quant/tier_layout.hpp. Two implementations exist, a portable
// scalar one and an AVX2+F16C+FMA one picked at run time; they produce identical bits for
// every finite input (tests check it), so results never depend on the machine.
//
// Rounding, shared by both paths (default floating-point environment assumed):
//   q8   d = fp16(amax / 127), q = rne(clamp(x / d, -127, 127)) computed as x * (1/d)
//   fp8  d = fp16(amax / 448), c = e4m3_rne_saturating(x * (1/d))
//   q4   m = min (exact in fp16), d = fp16((max - m) / 15), q = rne(clamp((x - m) * (1/d), 0, 15))
//   a group of zeros (d = 0) stores all-zero codes. Dequantization: q*d, e4m3(c)*d, q*d + m,
//   each multiply and add rounded separately (no FMA contraction: files build -ffp-contract=off).
// Precondition for every kernel: inputs are finite (no NaN or infinity).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "quant/level.hpp"
#include "quant/fp16.hpp"

namespace kvscope {

// Quantizes `groups` groups of 32 fp16 values into `payload` and `scales` (fp16 halves,
// scale_halves_per_group(p) per group). For fp16 it copies the halves and writes no scales.
using quantize_fn = void (*)(const fp16_bits* src, std::size_t groups, std::uint8_t* payload,
                             fp16_bits* scales);
// The inverse: `groups` groups to 32 floats each.
using dequantize_fn = void (*)(const std::uint8_t* payload, const fp16_bits* scales,
                               std::size_t groups, float* dst);

// The levels stored group by group, fp16 .. q4. q3 is a tile format (quant/q3.hpp): its
// kernels are its own, and these tables have no entry for it.
inline constexpr std::size_t group_level_count = 4;
inline constexpr std::array<precision, group_level_count> group_levels = {precision::fp16, precision::q8,
                                                                          precision::fp8, precision::q4};

struct kernel_set {
  std::string_view name;  // "scalar" or "avx2"
  void (*f32_to_fp16)(const float* src, fp16_bits* dst, std::size_t n);
  void (*fp16_to_f32)(const fp16_bits* src, float* dst, std::size_t n);
  std::array<quantize_fn, group_level_count> quantize;      // indexed by ordinal(precision)
  std::array<dequantize_fn, group_level_count> dequantize;  // indexed by ordinal(precision)
};

// The portable implementation, always available.
const kernel_set& scalar_kernels() noexcept;

// The AVX2+F16C+FMA implementation, or nullptr when this CPU or build lacks it.
const kernel_set* avx2_kernels() noexcept;

// The fastest set this CPU supports, chosen once on first use.
const kernel_set& best_kernels() noexcept;

// Shorthands over best_kernels().
inline void quantize(precision p, const fp16_bits* src, std::size_t groups, std::uint8_t* payload,
                     fp16_bits* scales) {
  best_kernels().quantize[ordinal(p)](src, groups, payload, scales);
}
inline void dequantize(precision p, const std::uint8_t* payload, const fp16_bits* scales,
                       std::size_t groups, float* dst) {
  best_kernels().dequantize[ordinal(p)](payload, scales, groups, dst);
}

}  // namespace kvscope
