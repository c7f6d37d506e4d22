// AVX-512 q4o quantizer, matching q4o_scalar.cpp bit for bit; dequantize is q4o_avx2.cpp's,
// already faster than memcpy. A group of 32 halves is one register, so the q4 part reads the
// tile itself: one word permute puts each outlier's stand-in in its place (q4o_avx2.cpp copies
// the rows and writes the stand-ins a half at a time), and 16 groups share one transposing
// reduction for their minima and maxima and one run of the scale arithmetic.
// avx512_q4o_kernels() checks the CPU before use.
#include "quant/q4o.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <cstring>

#include "quant/avx512_target.hpp"
#include "quant/kernels.hpp"

namespace kvscope {
// Named apart from the AVX2 files' helpers: with link-time optimization, GCC merged template
// instances of the same name in both files' anonymous namespaces, and the AVX-512 set ran the
// AVX2 rows.
namespace q4o_avx512 {
namespace {

constexpr std::size_t batch = 16;  // groups of one scale computation
constexpr std::size_t prefetch_rows = 8;  // ahead of the maxima pass within a tile, as q4o_avx2.cpp

// Largest |x| of each channel over the tile's rows, as fp16 bits without sign, 32 channels a
// register.
KVSCOPE_AVX512 void channel_magnitudes(const q4o_tile& t, const fp16_bits* src, std::size_t stride,
                                       std::uint16_t* magnitude) {
  const std::size_t rows = t.rows, vectors = t.head_dim / 32;
  const __m512i mask = _mm512_set1_epi16(0x7FFF);
  __m512i m[q4o_max_head_dim / 32];
  for (std::size_t i = 0; i < vectors; ++i) m[i] = _mm512_setzero_si512();
  for (std::size_t r = 0; r < rows; ++r) {
    if (r + prefetch_rows < rows) {  // as q4o_avx2.cpp's channel_magnitudes
      q4o_detail::prefetch_ahead(src + r * stride, prefetch_rows * stride * sizeof(fp16_bits), t.head_dim * sizeof(fp16_bits));
    }
    for (std::size_t i = 0; i < vectors; ++i) {
      m[i] = _mm512_max_epu16(m[i], _mm512_and_si512(_mm512_loadu_si512(src + r * stride + 32 * i), mask));
    }
  }
  for (std::size_t i = 0; i < vectors; ++i) _mm512_storeu_si512(magnitude + 32 * i, m[i]);
}

// Involution mapping finite halves to int16 in signed order (-0 just below +0), as
// kernels_avx2.cpp's ordered: h ^ ((h >> 15) & 0x7FFF) in one ternary operation.
KVSCOPE_AVX512_INLINE __m512i ordered(__m512i h) {
  return _mm512_ternarylogic_epi32(h, _mm512_srai_epi16(h, 15), _mm512_set1_epi16(0x7FFF), 0x78);
}
KVSCOPE_AVX512_INLINE __m256i ordered(__m256i h) {
  return _mm256_ternarylogic_epi32(h, _mm256_srai_epi16(h, 15), _mm256_set1_epi16(0x7FFF), 0x78);
}

struct min_i16 {
  KVSCOPE_AVX512_INLINE static __m512i op(__m512i a, __m512i b) { return _mm512_min_epi16(a, b); }
};
struct max_i16 {
  KVSCOPE_AVX512_INLINE static __m512i op(__m512i a, __m512i b) { return _mm512_max_epi16(a, b); }
};

// Op over each group's 32 ordered halves, group g in word g. m[p] holds group 2 p in its low 256
// bits and 2 p + 1 in its high ones, each already folded to 16 words. Within each 128-bit lane,
// transpose and reduce as kernels_avx2.cpp's reduce8, which leaves word p of lane k holding
// register p's lane k; then fold lanes 0 and 1 (group 2 p) and 2 and 3 (2 p + 1), and one
// permute puts the groups in order.
template <class Op>
KVSCOPE_AVX512_INLINE __m256i reduce16(const __m512i* m) {
  __m512i t[4];
  for (int i = 0; i < 4; ++i) {
    t[i] = Op::op(_mm512_unpacklo_epi16(m[2 * i], m[2 * i + 1]), _mm512_unpackhi_epi16(m[2 * i], m[2 * i + 1]));
  }
  const __m512i u0 = Op::op(_mm512_unpacklo_epi32(t[0], t[1]), _mm512_unpackhi_epi32(t[0], t[1]));
  const __m512i u1 = Op::op(_mm512_unpacklo_epi32(t[2], t[3]), _mm512_unpackhi_epi32(t[2], t[3]));
  const __m512i w = Op::op(_mm512_unpacklo_epi64(u0, u1), _mm512_unpackhi_epi64(u0, u1));
  const __m512i folded = Op::op(w, _mm512_shuffle_i64x2(w, w, 0xB1));
  alignas(64) static constexpr std::uint16_t order[32] = {0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23};
  return _mm512_castsi512_si256(_mm512_permutexvar_epi16(_mm512_load_si512(order), folded));
}

// One q4 group: byte j = q[j] | q[j + 16] << 4, each q = rne((x - m) * inv) capped at 15 (the
// product is in [0, ~23], so this equals the scalar clamp then round); the 16 bytes in the low
// byte of each 32-bit lane.
KVSCOPE_AVX512_INLINE __m512i q4_codes(__m512i h, __m512 m, __m512 inv) {
  const __m512 low = _mm512_cvtph_ps(_mm512_castsi512_si256(h));
  const __m512 high = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(h, 1));
  const __m512i fifteen = _mm512_set1_epi32(15);
  const __m512i q0 = _mm512_min_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(_mm512_sub_ps(low, m), inv)), fifteen);
  const __m512i q1 = _mm512_min_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(_mm512_sub_ps(high, m), inv)), fifteen);
  return _mm512_or_si512(q0, _mm512_slli_epi32(q1, 4));
}

// q4 of 16 groups in h (raw halves, stand-ins in place): codes to payload (16 bytes a group),
// (d, m) pairs to scales, as kernels_avx2.cpp's q4_batch computes them.
KVSCOPE_AVX512_INLINE void q4_batch(const __m512i* h, std::uint8_t* payload, fp16_bits* scales) {
  __m512i lo[batch / 2], hi[batch / 2];
  for (std::size_t p = 0; p < batch / 2; ++p) {
    const __m512i a = ordered(h[2 * p]), b = ordered(h[2 * p + 1]);
    const __m512i first = _mm512_shuffle_i64x2(a, b, 0x44), second = _mm512_shuffle_i64x2(a, b, 0xEE);
    lo[p] = _mm512_min_epi16(first, second);
    hi[p] = _mm512_max_epi16(first, second);
  }
  const __m512 zero = _mm512_setzero_ps();
  // + 0 turns -0 into +0, as the scalar path does.
  const __m512 m = _mm512_add_ps(_mm512_cvtph_ps(ordered(reduce16<min_i16>(lo))), zero);
  const __m512 top = _mm512_add_ps(_mm512_cvtph_ps(ordered(reduce16<max_i16>(hi))), zero);
  const __m256i d16 = _mm512_cvtps_ph(_mm512_div_ps(_mm512_sub_ps(top, m), _mm512_set1_ps(15.0f)), 0);
  const __m512 d = _mm512_cvtph_ps(d16);
  const __mmask16 nonzero = _mm512_cmp_ps_mask(d, zero, _CMP_NEQ_OQ);
  alignas(64) float inv[batch], mins[batch];
  _mm512_store_ps(inv, _mm512_maskz_div_ps(nonzero, _mm512_set1_ps(1.0f), d));
  _mm512_store_ps(mins, m);
  alignas(64) static constexpr std::uint16_t pairs[32] = {0,  32, 1,  33, 2,  34, 3,  35, 4,  36, 5,
                                                          37, 6,  38, 7,  39, 8,  40, 9,  41, 10, 42,
                                                          11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
  _mm512_storeu_si512(scales, _mm512_permutex2var_epi16(_mm512_castsi256_si512(d16), _mm512_load_si512(pairs),
                                                        _mm512_castsi256_si512(_mm512_cvtps_ph(m, 0))));
  // Two groups' low bytes into 32 bytes.
  alignas(64) static constexpr std::uint8_t take[64] = {0,  4,  8,  12, 16, 20, 24, 28, 32, 36, 40,
                                                        44, 48, 52, 56, 60, 64, 68, 72, 76, 80, 84,
                                                        88, 92, 96, 100, 104, 108, 112, 116, 120, 124};
  const __m512i pick = _mm512_load_si512(take);
  for (std::size_t g = 0; g < batch; g += 2) {
    const __m512i a = q4_codes(h[g], _mm512_set1_ps(mins[g]), _mm512_set1_ps(inv[g]));
    const __m512i b = q4_codes(h[g + 1], _mm512_set1_ps(mins[g + 1]), _mm512_set1_ps(inv[g + 1]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(payload + 16 * g),
                        _mm512_castsi512_si256(_mm512_permutex2var_epi8(a, pick, b)));
  }
}

// The word permutes of the row's groups: identity, but each outlier channel takes its stand-in.
struct stand_in_permutes {
  __m512i of[q4o_max_head_dim / 32];

  KVSCOPE_AVX512 stand_in_permutes(const q4o_tile& t, const std::uint8_t* channels) {
    alignas(64) std::uint16_t index[q4o_max_head_dim];
    for (std::size_t c = 0; c < t.head_dim; ++c) index[c] = static_cast<std::uint16_t>(c % 32);
    std::array<std::uint8_t, q4o_max_channels> stand_in;
    q4o_detail::stand_ins(channels, t.channels, stand_in.data());
    for (std::size_t j = 0; j < t.channels; ++j) index[channels[j]] = stand_in[j] % 32;
    for (std::size_t i = 0; i < t.head_dim / 32; ++i) of[i] = _mm512_load_si512(index + 32 * i);
  }
};

// The q4 part of the tile, 16 groups a batch in the tile's order (row by row). Groups of a
// batch's rows stored back to back when out_stride is head_dim, else through a buffer. Before
// each batch, its rows 1.5 tiles on are requested (and the outputs' lines, when tiles lie back to
// back), as q4o_avx2.cpp's quantize_chunk does.
KVSCOPE_AVX512 void quantize_groups(const q4o_tile& t, const stand_in_permutes& permutes, const fp16_bits* src,
                                    std::size_t src_stride, std::uint8_t* payload, fp16_bits* scales,
                                    std::size_t out_stride) {
  const std::size_t d = t.head_dim, per_row = d / 32, groups = t.rows * per_row;
  const bool back_to_back = src_stride == d && out_stride == d;
  alignas(64) std::uint8_t codes[batch * 16];
  alignas(64) fp16_bits pairs[batch * 2];
  for (std::size_t g0 = 0; g0 < groups; g0 += batch) {
    const std::size_t n = std::min(batch, groups - g0);
    if (back_to_back) {
      const std::size_t ahead = t.rows + t.rows / 2;
      q4o_detail::prefetch_ahead(src + g0 * 32, ahead * d * sizeof(fp16_bits), n * 64);
      q4o_detail::prefetch_ahead<true>(payload + g0 * 16, ahead * d / 2, n * 16);
      q4o_detail::prefetch_ahead<true>(scales + g0 * 2, ahead * d / 16 * sizeof(fp16_bits), n * 4);
    }
    __m512i h[batch];
    for (std::size_t b = 0, r = g0 / per_row, i = g0 % per_row; b < batch; ++b) {  // group g0 + b: (r, i)
      h[b] = b < n ? _mm512_permutexvar_epi16(permutes.of[i], _mm512_loadu_si512(src + r * src_stride + 32 * i))
                   : _mm512_setzero_si512();
      if (++i == per_row) i = 0, ++r;
    }
    if (back_to_back && n == batch) {
      q4_batch(h, payload + g0 * 16, scales + g0 * 2);
      continue;
    }
    q4_batch(h, codes, pairs);
    for (std::size_t b = 0, r = g0 / per_row, i = g0 % per_row; b < n; ++b) {
      std::memcpy(payload + r * out_stride / 2 + 16 * i, codes + 16 * b, 16);
      std::memcpy(scales + r * out_stride / 16 + 2 * i, pairs + 2 * b, 2 * sizeof(fp16_bits));
      if (++i == per_row) i = 0, ++r;
    }
  }
}

KVSCOPE_AVX512 void quantize_q4o(const q4o_tile& t, const fp16_bits* src, std::size_t src_stride,
                                 std::uint8_t* payload, fp16_bits* scales, std::size_t out_stride,
                                 std::uint8_t* side) {
  assert(valid_q4o_tile(t) && src_stride % 32 == 0 && out_stride % 32 == 0);
  const std::size_t k = t.channels;
  std::array<float, q4o_max_channels> inv{};
  q4o_detail::write_side_header_avx512(t, src, src_stride, side, inv.data());
  const std::uint8_t* channels = side + k * sizeof(fp16_bits);
  auto* codes = reinterpret_cast<std::int8_t*>(side + k * (sizeof(fp16_bits) + 1));
  for (std::size_t j = 0; j < k; ++j) {
    q4o_detail::outlier_codes_avx2(src, src_stride, t.rows, channels[j], inv[j], codes + j * t.rows);
  }
  quantize_groups(t, stand_in_permutes(t, channels), src, src_stride, payload, scales, out_stride);
}

// CPUID for AVX-512 F, DQ, BW, VL and VBMI, and XGETBV for the OS saving the opmask and ZMM
// state; AVX2, F16C and FMA as avx2_kernels() checks them. By hand, as kernels_avx2.cpp does:
// clang 14's __builtin_cpu_supports does not know "f16c".
bool cpu_has_avx512() noexcept {
  if (avx2_kernels() == nullptr || __get_cpuid_max(0, nullptr) < 7) return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid_count(7, 0, a, b, c, d);
  const unsigned needed = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);  // F DQ BW VL
  if ((b & needed) != needed || (c & (1u << 1)) == 0) return false;           // VBMI
  unsigned xcr0 = 0, xcr0_high = 0;
  __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
  return (xcr0 & 0xE6u) == 0xE6u;  // XMM, YMM, opmask, ZMM 0-15 upper halves, ZMM 16-31
}

}  // namespace
}  // namespace q4o_avx512

KVSCOPE_AVX512 void q4o_detail::write_side_header_avx512(const q4o_tile& t, const fp16_bits* src,
                                                         std::size_t src_stride, std::uint8_t* side,
                                                         float* inv) noexcept {
  alignas(64) std::array<std::uint16_t, q4o_max_head_dim> magnitude;
  q4o_avx512::channel_magnitudes(t, src, src_stride, magnitude.data());
  side_header_from_magnitudes_avx2(t, magnitude.data(), side, inv);
}

const q4o_kernel_set* avx512_q4o_kernels() noexcept {
  static const bool supported = q4o_avx512::cpu_has_avx512();
  if (!supported) return nullptr;
  static const q4o_kernel_set set{"avx512", q4o_avx512::quantize_q4o, avx2_q4o_kernels()->dequantize};
  return &set;
}

}  // namespace kvscope

#else

namespace kvscope {
const q4o_kernel_set* avx512_q4o_kernels() noexcept { return nullptr; }
}  // namespace kvscope

#endif
