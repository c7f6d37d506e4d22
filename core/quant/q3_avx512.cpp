// AVX-512 q3 quantizer, matching q3_scalar.cpp bit for bit; dequantize is q3_avx2.cpp's, already
// faster than memcpy. The AVX2 quantizer issued about 3 vector operations a cycle, so only fewer
// operations a value could speed it up: here a register holds 16 values, and the codes take about
// half the operations (compares into masks, masked adds of each code's bit position).
//
// A row lives in head_dim / 16 registers. The Hadamard stages len 1, 2, 4 and 8 pair lanes of one
// register, each in a permute and a fused multiply-add as in q3_avx2.cpp (the product by +-1 is
// exact, so the one rounding is the add's); the others pair whole registers. The sums of squares
// keep q3.hpp's 8 chains a row (lane l taking y[8 j + l]^2 for j = 0, 1, ... in turn), two rows a
// register: 16 lanes of one row would reassociate them.
#include "quant/q3.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>

#include "quant/avx512_target.hpp"
#include "quant/q3_simd.hpp"

namespace kvscope {
// Named apart from the AVX2 files' helpers: with link-time optimization, GCC merged template
// instances of the same name in both files' anonymous namespaces, and the AVX-512 set ran the
// AVX2 rows.
namespace q3_avx512 {
namespace {

using q3_simd::batch_rows;
constexpr std::size_t group_bytes = 12;

// +1 in each lane, -1 in those of `minus`: the multipliers of one in-register stage.
KVSCOPE_AVX512_INLINE __m512 stage_signs(__mmask16 minus) {
  return _mm512_mask_blend_ps(minus, _mm512_set1_ps(1.0f), _mm512_set1_ps(-1.0f));
}

// q3_scalar.cpp's hadamard on a row in D / 16 registers: four in-register stages, register by
// register (a butterfly needs only its inputs' previous stage), then the stages pairing registers.
template <std::size_t D>
KVSCOPE_AVX512_INLINE void hadamard(__m512* v) {
  constexpr std::size_t regs = D / 16, n = q3_rotation_size(D) / 16;  // n >= 2: D is a multiple of 32
  const __m512 odd = stage_signs(0xAAAA), pairs = stage_signs(0xCCCC);
  const __m512 quads = stage_signs(0xF0F0), half = stage_signs(0xFF00);
#pragma GCC unroll 16
  for (std::size_t i = 0; i < regs; ++i) {
    v[i] = _mm512_fmadd_ps(v[i], odd, _mm512_permute_ps(v[i], 0xB1));
    v[i] = _mm512_fmadd_ps(v[i], pairs, _mm512_permute_ps(v[i], 0x4E));
    v[i] = _mm512_fmadd_ps(v[i], quads, _mm512_shuffle_f32x4(v[i], v[i], 0xB1));
    v[i] = _mm512_fmadd_ps(v[i], half, _mm512_shuffle_f32x4(v[i], v[i], 0x4E));
  }
#pragma GCC unroll 8
  for (std::size_t len = 1; len < n; len *= 2) {
#pragma GCC unroll 16
    for (std::size_t i = 0; i < regs; i += 2 * len) {
#pragma GCC unroll 16
      for (std::size_t j = i; j < i + len; ++j) {
        const __m512 a = v[j], b = v[j + len];
        v[j] = _mm512_add_ps(a, b);
        v[j + len] = _mm512_sub_ps(a, b);
      }
    }
  }
}

// A row's rotation: D x with its outlier channels zeroed, then H, into v. Without outliers
// (`Keep` false: values) the mask is all ones and left out.
template <std::size_t D, bool Keep>
KVSCOPE_AVX512_INLINE void rotate_row(const fp16_bits* x, const std::uint32_t* sign, const std::uint32_t* keep,
                                      __m512* v) {
  constexpr std::size_t regs = D / 16;
#pragma GCC unroll 16
  for (std::size_t i = 0; i < regs; ++i) {
    const __m512i h = _mm512_castps_si512(
        _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + 16 * i))));
    const __m512i s = _mm512_loadu_si512(sign + 16 * i);
    if constexpr (Keep) {  // (h ^ s) & keep in one operation
      v[i] = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(h, s, _mm512_loadu_si512(keep + 16 * i), 0x28));
    } else {
      v[i] = _mm512_castsi512_ps(_mm512_xor_si512(h, s));
    }
  }
  hadamard<D>(v);
}

// The 8 lane sums of rotated rows a and b (q3.hpp's order: lane l adds y[8 j + l]^2 for j = 0,
// 1, ... in turn), a's in the low half and b's in the high one. Two rows a register: a row's 16
// lanes would reassociate its chains. After the batch's rotations rather than after each row's:
// a row's chain of D / 8 dependent adds then overlaps the other rows' chains, where it had
// stalled the next row's rotation (in cache, 0.39 to 0.33 ns a value at head_dim 128).
template <std::size_t D>
KVSCOPE_AVX512_INLINE __m512 lane_sums(const float* a, const float* b) {
  __m512 lanes = _mm512_setzero_ps();
#pragma GCC unroll 32
  for (std::size_t j = 0; j < D / 8; ++j) {
    const __m512 y = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_load_ps(a + 8 * j)), _mm256_load_ps(b + 8 * j), 1);
    lanes = _mm512_add_ps(lanes, _mm512_mul_ps(y, y));
  }
  return lanes;
}

// Codes. Register `half` of a group (0: its values 0-15, 1: 16-31) holds value 8 s + j in lane
// 8 (s - 2 half) + j. A code is m ^ 4 (4 + m) or, below zero, m ^ 4 ^ 7 (3 - m), m <= 3 the
// thresholds under |u| (quant/q3.hpp): starting from 4 at each code's place, each threshold
// compare adds 1 there under its mask and the sign bit's mask xors 7. The place of value 8 s + j's
// code is bit 3 s of field j (its 12-bit field of the group), which sits at bit 20 of the lane
// when j is even and at bit 0 when odd: folding lanes j + 8 onto lanes j then puts fields j and
// j + 1 at bits 20-43 of one 64-bit lane, 24 bits that a shift by 4 aligns to bytes 2-4.
struct code_places {
  __m512i unit[2], seven[2], start;
  __m512 threshold[3];  // the positive ones

  KVSCOPE_AVX512 explicit code_places(const q3_table& table) {
    alignas(64) std::uint32_t u[2][16], s[16];
    for (std::size_t l = 0; l < 16; ++l) {
      for (std::size_t h = 0; h < 2; ++h) u[h][l] = 1u << (3 * (2 * h + l / 8) + (l % 2 == 0 ? 20 : 0));
      s[l] = 4 * u[0][l] + 4 * u[1][l];
    }
    for (std::size_t h = 0; h < 2; ++h) {
      unit[h] = _mm512_load_si512(u[h]);
      seven[h] = _mm512_mullo_epi32(unit[h], _mm512_set1_epi32(7));
    }
    start = _mm512_load_si512(s);
    for (std::size_t j = 0; j < 3; ++j) threshold[j] = _mm512_set1_ps(table.threshold[4 + j]);
  }
};

KVSCOPE_AVX512_INLINE __m512i add_codes(__m512i fields, __m512 y, __m512 inv, const code_places& p, int half) {
  const __m512 u = _mm512_mul_ps(y, inv);
  const __m512 a = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(u), _mm512_set1_epi32(0x7FFFFFFF)));
  for (int j = 0; j < 3; ++j) {
    fields = _mm512_mask_add_epi32(fields, _mm512_cmp_ps_mask(a, p.threshold[j], _CMP_GT_OQ), fields, p.unit[half]);
  }
  return _mm512_mask_xor_epi32(fields, _mm512_movepi32_mask(_mm512_castps_si512(u)), fields, p.seven[half]);
}

// The fields of the group of 32 rotated values at y: lane j and lane j + 8 together hold field j.
KVSCOPE_AVX512_INLINE __m512i group_fields(const float* y, __m512 inv, const code_places& p) {
  const __m512i fields = add_codes(p.start, _mm512_load_ps(y), inv, p, 0);
  return add_codes(fields, _mm512_load_ps(y + 16), inv, p, 1);
}

// Groups a and b (zero for none) into their bytes at out, `bytes` (a mask) of them: fields folded
// into 8 lanes a group, b's after a's, then 3 bytes of each 64-bit lane.
KVSCOPE_AVX512_INLINE void store_groups(__m512i a, __m512i b, __mmask64 bytes, std::uint8_t* out) {
  alignas(64) static constexpr std::uint8_t pick[64] = {2,  3,  4,  10, 11, 12, 18, 19, 20, 26, 27, 28,
                                                        34, 35, 36, 42, 43, 44, 50, 51, 52, 58, 59, 60};
  const __m512i fields = _mm512_or_si512(_mm512_shuffle_i64x2(a, b, 0x44), _mm512_shuffle_i64x2(a, b, 0xEE));
  const __m512i packed = _mm512_permutexvar_epi8(_mm512_load_si512(pick), _mm512_srli_epi64(fields, 4));
  _mm512_mask_storeu_epi8(out, bytes, packed);
}

// A row's codes from its rotated values and its 1 / (s * sqrt(n)), groups two at a time.
template <std::size_t D>
KVSCOPE_AVX512_INLINE void store_row(const float* y, __m512 inv, const code_places& p, std::uint8_t* row) {
  constexpr __mmask64 two = (__mmask64{1} << (2 * group_bytes)) - 1, one = (__mmask64{1} << group_bytes) - 1;
  std::size_t g = 0;
#pragma GCC unroll 4
  for (; g + 2 <= D / 32; g += 2) {
    store_groups(group_fields(y + 32 * g, inv, p), group_fields(y + 32 * g + 32, inv, p), two, row + group_bytes * g);
  }
  if constexpr (D / 32 % 2 != 0) {
    store_groups(group_fields(y + 32 * g, inv, p), _mm512_setzero_si512(), one, row + group_bytes * g);
  }
}

// As q3_avx2.cpp's quantize_rows: in batches, rotate each row into an L1 buffer, then the
// batch's scales, then the codes; requests tiles 1.5 on as it does.
template <std::size_t D>
KVSCOPE_AVX512 void quantize_rows(const q3_tile& t, const fp16_bits* src, std::size_t src_stride,
                                  std::uint8_t* payload, fp16_bits* scales, std::size_t out_stride,
                                  const std::uint8_t* channels) {
  constexpr std::size_t regs = D / 16;
  alignas(64) std::array<std::uint32_t, D> keep;  // outlier channels enter the rotation as +0
  keep.fill(0xFFFFFFFFu);
  for (std::size_t j = 0; j < t.channels; ++j) keep[channels[j]] = 0;
  const std::uint32_t* sign = q3_sign_bits();
  const code_places places(table_of(t.codebook));
  alignas(64) float y[batch_rows * D];
  const bool next_tile = src_stride == D;
  // A value tile's first reads are the rotations', one row at a time: requesting the whole tile
  // first lets its misses overlap (a key tile's maxima pass has read it already). Those the rows
  // request 1.5 tiles on still come in time for most tiles; on 128 MiB of values, 0.41-0.44 ns a
  // value without this, 0.38-0.40 with (a burst for the next tile instead: 0.46-0.48).
  if (next_tile && t.channels == 0) q4o_detail::prefetch_ahead(src, 0, t.rows * D * sizeof(fp16_bits));
  for (std::size_t r0 = 0; r0 < t.rows; r0 += batch_rows) {
    const std::size_t n = std::min(batch_rows, t.rows - r0);
    for (std::size_t b = 0; b < n; ++b) {
      __m512 v[regs];
      const fp16_bits* x = src + (r0 + b) * src_stride;
      if (next_tile) q4o_detail::prefetch_ahead(x, (t.rows + t.rows / 2) * D * sizeof(fp16_bits), D * 2);
      if (t.channels > 0) {
        rotate_row<D, true>(x, sign, keep.data(), v);
      } else {
        rotate_row<D, false>(x, sign, keep.data(), v);
      }
      for (std::size_t i = 0; i < regs; ++i) _mm512_store_ps(y + b * D + 16 * i, v[i]);
    }
    alignas(64) float lanes[batch_rows * 8];
    for (std::size_t b = 0; b < n; b += 2) {  // an odd last row pairs with itself
      _mm512_store_ps(lanes + 8 * b, lane_sums<D>(y + b * D, y + std::min(b + 1, n - 1) * D));
    }
    alignas(32) float sums[batch_rows] = {};
    for (std::size_t b = 0; b < n; ++b) sums[b] = q3_simd::lane_sum(_mm256_load_ps(lanes + 8 * b));
    alignas(32) float inv[batch_rows];
    _mm256_store_ps(inv, q3_simd::row_scales<D>(sums, n, scales + r0 * out_stride / D, out_stride / D));
    for (std::size_t b = 0; b < n; ++b) {
      std::uint8_t* row = payload + q3_payload_bytes((r0 + b) * out_stride);
      if (out_stride == D) {
        q4o_detail::prefetch_ahead<true>(row, q3_payload_bytes((t.rows + t.rows / 2) * D), q3_payload_bytes(D));
      }
      store_row<D>(y + b * D, _mm512_set1_ps(inv[b]), places, row);
    }
  }
}

template <std::size_t D>
struct quantize_at {
  template <class... Args>
  static void run(Args... args) { quantize_rows<D>(args...); }
};

KVSCOPE_AVX512 void quantize_q3(const q3_tile& t, const fp16_bits* src, std::size_t src_stride,
                                std::uint8_t* payload, fp16_bits* scales, std::size_t out_stride,
                                std::uint8_t* side) {
  assert(valid_q3_tile(t) && src_stride % 32 == 0 && out_stride % t.head_dim == 0);
  const std::uint8_t* channels = q3_simd::write_side_record(t, src, src_stride, side, q4o_detail::write_side_header_avx512);
  q3_simd::by_head_dim<quantize_at>(t.head_dim, t, src, src_stride, payload, scales, out_stride, channels);
}

}  // namespace
}  // namespace q3_avx512

const q3_kernel_set* avx512_q3_kernels() noexcept {
  if (avx512_q4o_kernels() == nullptr) return nullptr;  // the CPU check, and AVX2 for dequantize
  static const q3_kernel_set set{"avx512", q3_avx512::quantize_q3, avx2_q3_kernels()->dequantize};
  return &set;
}

}  // namespace kvscope

#else

namespace kvscope {
const q3_kernel_set* avx512_q3_kernels() noexcept { return nullptr; }
}  // namespace kvscope

#endif
