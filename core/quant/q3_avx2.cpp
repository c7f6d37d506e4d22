// AVX2 + F16C q3 kernels, matching q3_scalar.cpp bit for bit. A row lives in registers, 8 values
// each, with head_dim a template constant so the loops unroll: the first three Hadamard stages
// (len 1, 2, 4) pair lanes of one register, the others pair whole registers; the 3-bit code of 8
// values becomes their float with one lane permute of the row's 8 scaled centroids. As in kernels_avx2.cpp, every function carries a target attribute
// instead of the file building with -mavx2.
#include "quant/q3.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <cstring>

#include "quant/q3_simd.hpp"

#define KVSCOPE_AVX2 __attribute__((target("avx2,f16c,fma")))
#define KVSCOPE_AVX2_INLINE __attribute__((target("avx2,f16c,fma"), always_inline)) inline

namespace kvscope {
namespace {

constexpr std::size_t group_bytes = 12;

KVSCOPE_AVX2_INLINE __m256 load_bits(const std::uint32_t* bits) {
  return _mm256_load_ps(reinterpret_cast<const float*>(bits));
}

// One in-register stage: lanes (i, i ^ len) become (a + b, a - b) with a the lower lane, as
// partner + lane x (+1 below, -1 above) in one fused multiply-add: the product is exact, so the
// one rounding is that of b + a, or a + (-b), as a + b and a - b round (signed zeros too).
// `swap` holds each lane's partner, `sign` the +1 and -1.
KVSCOPE_AVX2_INLINE __m256 butterfly(__m256 v, __m256 swap, __m256 sign) {
  return _mm256_fmadd_ps(v, sign, swap);
}

// The cross-register stages len .. n (in registers) of registers [first, end), each pair (j,
// j + len) of one block of 2 len.
KVSCOPE_AVX2_INLINE void cross_stages(__m256* v, std::size_t first, std::size_t end, std::size_t len,
                                      std::size_t n) {
#pragma GCC unroll 8
  for (; len < n; len *= 2) {
#pragma GCC unroll 32
    for (std::size_t i = first; i < end; i += 2 * len) {
#pragma GCC unroll 32
      for (std::size_t j = i; j < i + len; ++j) {
        const __m256 a = v[j], b = v[j + len];
        v[j] = _mm256_add_ps(a, b);
        v[j + len] = _mm256_sub_ps(a, b);
      }
    }
  }
}

// q3_scalar.cpp's hadamard on a row held in D / 8 registers; with D a constant the loops unroll
// and the row stays in registers (D = 128: 16). A butterfly needs only its two inputs' previous
// stage, so blocks of 8 registers go through all their own stages first, and the stages pairing
// blocks come last: a block and the temporaries fit the 16 registers, where all 16 of a row
// spilled (the same operations on the same values, so the same bits).
template <std::size_t D>
KVSCOPE_AVX2_INLINE void hadamard(__m256* v) {
  constexpr std::size_t regs = D / 8, n = q3_rotation_size(D) / 8, block = n < 8 ? n : 8;
  const __m256 plus = _mm256_set1_ps(1.0f), minus = _mm256_set1_ps(-1.0f);
  const __m256 odd = _mm256_blend_ps(plus, minus, 0xAA), pairs = _mm256_blend_ps(plus, minus, 0xCC);
  const __m256 half = _mm256_blend_ps(plus, minus, 0xF0);
#pragma GCC unroll 32
  for (std::size_t first = 0; first < regs; first += block) {
#pragma GCC unroll 8
    for (std::size_t i = first; i < first + block; ++i) {
      v[i] = butterfly(v[i], _mm256_permute_ps(v[i], 0xB1), odd);
      v[i] = butterfly(v[i], _mm256_permute_ps(v[i], 0x4E), pairs);
      v[i] = butterfly(v[i], _mm256_permute2f128_ps(v[i], v[i], 0x01), half);
    }
    cross_stages(v, first, first + block, 1, block);
  }
  cross_stages(v, 0, regs, block, n);
}

// The 12-bit fields of one group of 32 rotated values at y (lane j of vector s is value 8 s + j):
// lane j's field holds value 8 s + j's code at bit 3 s. A code is m ^ 4 (4 + m) or, below zero,
// m ^ 4 ^ 7 (3 - m), m <= 3 the thresholds under |u|: the counts and the sevens gather at their
// bit offsets, the sevens into 04444 so that every code's 4 comes with them, and one xor joins
// the two.
KVSCOPE_AVX2_INLINE __m256i group_fields(const float* y, __m256 inv, const __m256* threshold) {
  const __m256 magnitude_bits = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  __m256i counts = _mm256_setzero_si256(), sevens = _mm256_set1_epi32(04444);
#pragma GCC unroll 4
  for (int s = 0; s < 4; ++s) {  // unrolled, so each shift is an immediate
    const __m256 u = _mm256_mul_ps(_mm256_load_ps(y + 8 * s), inv);
    const __m256 a = _mm256_and_ps(u, magnitude_bits);
    // A true compare is -1: their sum is -m, and subtracting it shifted adds m << 3 s.
    const __m256i m0 = _mm256_castps_si256(_mm256_cmp_ps(a, threshold[0], _CMP_GT_OQ));
    const __m256i m1 = _mm256_castps_si256(_mm256_cmp_ps(a, threshold[1], _CMP_GT_OQ));
    const __m256i m2 = _mm256_castps_si256(_mm256_cmp_ps(a, threshold[2], _CMP_GT_OQ));
    const __m256i minus_m = _mm256_add_epi32(_mm256_add_epi32(m0, m1), m2);
    counts = _mm256_sub_epi32(counts, _mm256_slli_epi32(minus_m, 3 * s));
    const __m256i negative = _mm256_srai_epi32(_mm256_castps_si256(u), 31);
    sevens = _mm256_xor_si256(sevens, _mm256_and_si256(negative, _mm256_set1_epi32(7 << (3 * s))));
  }
  return _mm256_xor_si256(counts, sevens);
}

// 12 bytes from 16 (of 3-byte runs), lane by lane: the 24-bit pairs of fields packed together.
KVSCOPE_AVX2_INLINE __m256i three_of_four(__m256i v) {
  return _mm256_shuffle_epi8(v, _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1, 0, 1,
                                                 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1));
}

// 12 bytes to out, in an 8-byte and a 4-byte store: never past the group.
KVSCOPE_AVX2_INLINE void store12(__m128i bytes, std::uint8_t* out) {
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), bytes);
  const auto last = static_cast<std::uint32_t>(_mm_extract_epi32(bytes, 2));
  std::memcpy(out + 8, &last, 4);
}

// Two neighbouring groups' fields into their 24 bytes, 16 fields of 12 bits back to back: group
// a's 8 fields to 16 bits in the low lane and b's in the high one, neighbours joined into 24 bits
// with one multiply-add, 3 bytes of each 4 kept. Per group, this took twice the operations.
KVSCOPE_AVX2_INLINE void store_pair(__m256i a, __m256i b, std::uint8_t* out) {
  const __m256i low = _mm256_permute2x128_si256(a, b, 0x20), high = _mm256_permute2x128_si256(a, b, 0x31);
  const __m256i halves = _mm256_packus_epi32(low, high);  // fields are below 2^12
  const __m256i bytes = three_of_four(_mm256_madd_epi16(halves, _mm256_set1_epi32(0x10000001)));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(bytes));  // b's store covers bytes 12-15
  store12(_mm256_extracti128_si256(bytes, 1), out + group_bytes);
}

// A group without a neighbour (head_dim an odd number of groups): its 8 fields, in the same way.
KVSCOPE_AVX2_INLINE void store_one(__m256i a, std::uint8_t* out) {
  const __m256i halves = _mm256_packus_epi32(a, _mm256_setzero_si256());  // a0-3, 0 | a4-7, 0
  const __m256i bytes = three_of_four(_mm256_madd_epi16(halves, _mm256_set1_epi32(0x10000001)));
  store12(_mm_or_si128(_mm256_castsi256_si128(bytes), _mm_slli_si128(_mm256_extracti128_si256(bytes, 1), 6)), out);
}

// The inverse: each lane gathers the 2 bytes holding its 12 bits and shifts them down; then
// code s is 3 bits of it, and its float one permute of the row's scaled centroids. The group's
// bytes come in one 16-byte broadcast load, which must stay inside the row: from the group on
// (`Back` 0) when a group follows it, else from 4 bytes before it (`Back` 4, a group precedes it).
template <int Back>
KVSCOPE_AVX2_INLINE __m256i gather_group(const std::uint8_t* in) {
  const __m256i bytes = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in - Back)));
  constexpr char b = Back;
  return _mm256_shuffle_epi8(
      bytes, _mm256_setr_epi8(b + 0, b + 1, -1, -1, b + 1, b + 2, -1, -1, b + 3, b + 4, -1, -1, b + 4, b + 5,
                              -1, -1, b + 6, b + 7, -1, -1, b + 7, b + 8, -1, -1, b + 9, b + 10, -1, -1,
                              b + 10, b + 11, -1, -1));
}

// A row's only group (head_dim 32) has neither neighbour: 8 bytes and 4 more.
KVSCOPE_AVX2_INLINE __m256i gather_lone_group(const std::uint8_t* in) {
  std::uint32_t last;
  std::memcpy(&last, in + 8, 4);
  const __m128i bytes = _mm_insert_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in)),
                                         static_cast<int>(last), 2);
  return _mm256_shuffle_epi8(
      _mm256_broadcastsi128_si256(bytes),
      _mm256_setr_epi8(0, 1, -1, -1, 1, 2, -1, -1, 3, 4, -1, -1, 4, 5, -1, -1, 6, 7, -1, -1, 7, 8, -1,
                       -1, 9, 10, -1, -1, 10, 11, -1, -1));
}

KVSCOPE_AVX2_INLINE void unpack_group(__m256i gathered, __m256 centroid, __m256* y) {
  const __m256i word = _mm256_srlv_epi32(gathered, _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4));
  // The permute reads only an index's low 3 bits: no masking.
  y[0] = _mm256_permutevar8x32_ps(centroid, word);
  y[1] = _mm256_permutevar8x32_ps(centroid, _mm256_srli_epi32(word, 3));
  y[2] = _mm256_permutevar8x32_ps(centroid, _mm256_srli_epi32(word, 6));
  y[3] = _mm256_permutevar8x32_ps(centroid, _mm256_srli_epi32(word, 9));
}

// The tile's outlier channels, with their scales as floats (what restore_q4o_outliers computes
// a value at a time).
struct outliers {
  std::size_t k = 0;
  const std::uint8_t* channels = nullptr;
  const std::int8_t* codes = nullptr;
  std::array<float, q4o_max_channels> scale{};

  outliers(const q3_tile& t, const std::uint8_t* side) : k(t.channels) {
    if (k == 0) return;
    channels = side + k * sizeof(fp16_bits);
    codes = reinterpret_cast<const std::int8_t*>(channels + k);
    for (std::size_t j = 0; j < k; ++j) {
      fp16_bits d16;
      std::memcpy(&d16, side + j * sizeof(fp16_bits), sizeof d16);
      scale[j] = fp16_to_f32(d16);
    }
  }
};

// A row's rotation: D x with its outlier channels zeroed, then H, into v; returns its lane sums.
// Without outliers (`Keep` false: values) the mask is all ones and left out.
template <std::size_t D, bool Keep>
KVSCOPE_AVX2_INLINE __m256 rotate_row(const fp16_bits* x, const std::uint32_t* sign,
                                      const std::uint32_t* keep, __m256* v) {
  constexpr std::size_t regs = D / 8;
  for (std::size_t i = 0; i < regs; ++i) {
    const __m256 h = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + 8 * i)));
    v[i] = _mm256_xor_ps(h, load_bits(sign + 8 * i));
    if constexpr (Keep) v[i] = _mm256_and_ps(v[i], load_bits(keep + 8 * i));
  }
  hadamard<D>(v);
  __m256 lanes = _mm256_setzero_ps();
  for (std::size_t i = 0; i < regs; ++i) lanes = _mm256_add_ps(lanes, _mm256_mul_ps(v[i], v[i]));
  return lanes;
}

// In batches: rotate each row into an L1 buffer, then the batch's scales, then the codes. Row by
// row, a row's scale (a chain of adds, a division, a square root) stalled its own codes.
template <std::size_t D>
KVSCOPE_AVX2 void quantize_rows(const q3_tile& t, const fp16_bits* src, std::size_t src_stride,
                                std::uint8_t* payload, fp16_bits* scales, std::size_t out_stride,
                                const std::uint8_t* channels) {
  constexpr std::size_t regs = D / 8;
  // Outlier channels enter the rotation as +0: all ones but theirs.
  alignas(32) std::array<std::uint32_t, D> keep;
  keep.fill(0xFFFFFFFFu);
  for (std::size_t j = 0; j < t.channels; ++j) keep[channels[j]] = 0;
  const std::uint32_t* sign = q3_sign_bits();
  const q3_table& table = table_of(t.codebook);
  __m256 threshold[3];  // the positive ones
  for (int j = 0; j < 3; ++j) threshold[j] = _mm256_set1_ps(table.threshold[4 + j]);
  alignas(32) float y[q3_simd::batch_rows * D];
  const bool next_tile = src_stride == D;
  for (std::size_t r0 = 0; r0 < t.rows; r0 += q3_simd::batch_rows) {
    const std::size_t n = std::min(q3_simd::batch_rows, t.rows - r0);
    alignas(32) float sums[q3_simd::batch_rows] = {};
    for (std::size_t b = 0; b < n; ++b) {
      __m256 v[regs];
      const fp16_bits* x = src + (r0 + b) * src_stride;
      // The row 1.5 tiles on, when tiles lie back to back (as q4o_avx2.cpp's quantize_chunk):
      // without, each tile's first reads waited on memory.
      if (next_tile) q4o_detail::prefetch_ahead(x, (t.rows + t.rows / 2) * D * sizeof(fp16_bits), D * 2);
      sums[b] = q3_simd::lane_sum(t.channels > 0 ? rotate_row<D, true>(x, sign, keep.data(), v)
                                        : rotate_row<D, false>(x, sign, keep.data(), v));
      for (std::size_t i = 0; i < regs; ++i) _mm256_store_ps(y + b * D + 8 * i, v[i]);
    }
    alignas(32) float inv[q3_simd::batch_rows];
    _mm256_store_ps(inv, q3_simd::row_scales<D>(sums, n, scales + r0 * out_stride / D, out_stride / D));
    for (std::size_t b = 0; b < n; ++b) {
      const __m256 step = _mm256_set1_ps(inv[b]);
      std::uint8_t* row = payload + q3_payload_bytes((r0 + b) * out_stride);
      if (out_stride == D) {  // the codes 1.5 tiles on too: 128 MiB, 0.52x memcpy without, 0.55x with
        q4o_detail::prefetch_ahead<true>(row, q3_payload_bytes((t.rows + t.rows / 2) * D), q3_payload_bytes(D));
      }
      const float* values = y + b * D;
      std::size_t g = 0;
      for (; g + 2 <= D / 32; g += 2) {
        store_pair(group_fields(values + 32 * g, step, threshold), group_fields(values + 32 * g + 32, step, threshold),
                   row + group_bytes * g);
      }
      if constexpr (D / 32 % 2 != 0) store_one(group_fields(values + 32 * g, step, threshold), row + group_bytes * g);
    }
  }
}

// q3_detail::decode_step for a batch's `n` rows, lane b row b, with F16C's conversion.
template <std::size_t D>
KVSCOPE_AVX2_INLINE __m256 decode_steps(const fp16_bits* scales, std::size_t n, std::size_t scale_stride) {
  alignas(16) fp16_bits h[q3_simd::batch_rows] = {};
  for (std::size_t b = 0; b < n; ++b) h[b] = scales[b * scale_stride];
  const __m256 scale = _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(h)));
  return _mm256_div_ps(scale, _mm256_set1_ps(std::sqrt(static_cast<float>(q3_rotation_size(D)))));
}

template <std::size_t D>
KVSCOPE_AVX2 void dequantize_rows(const q3_tile& t, const std::uint8_t* payload,
                                  const fp16_bits* scales, std::size_t in_stride,
                                  const std::uint8_t* side, float* dst, std::size_t dst_stride) {
  constexpr std::size_t regs = D / 8;
  const std::uint32_t* sign = q3_sign_bits();
  const __m256 unit = _mm256_loadu_ps(table_of(t.codebook).centroid.data());
  const outliers kept(t, side);
  // When tiles lie back to back, the next tile's payload, scales and side record are requested
  // while this one decodes, as the level dequantizers do (kernels_avx2.cpp).
  const bool next_tile = in_stride == D;
  if (next_tile && kept.k > 0) {
    const std::size_t bytes = q4o_side_bytes(t.rows, kept.k);
    q4o_detail::prefetch_ahead(side, bytes, bytes);
  }
  for (std::size_t r0 = 0; r0 < t.rows; r0 += q3_simd::batch_rows) {
    const std::size_t n = std::min(q3_simd::batch_rows, t.rows - r0);
    if (next_tile) q4o_detail::prefetch_ahead(scales + r0, t.rows * sizeof(fp16_bits), q3_simd::batch_rows * sizeof(fp16_bits));
    alignas(32) float steps[q3_simd::batch_rows];
    _mm256_store_ps(steps, decode_steps<D>(scales + r0 * in_stride / D, n, in_stride / D));
    for (std::size_t b = 0; b < n; ++b) {
      const std::size_t r = r0 + b;
      const __m256 centroid = _mm256_mul_ps(unit, _mm256_set1_ps(steps[b]));
      const std::uint8_t* row = payload + q3_payload_bytes(r * in_stride);
      if (next_tile) q4o_detail::prefetch_ahead(row, q3_payload_bytes(t.rows * D), q3_payload_bytes(D));
      __m256 v[regs];
      if constexpr (D == 32) {
        unpack_group(gather_lone_group(row), centroid, v);
      } else {
        for (std::size_t g = 0; g + 1 < D / 32; ++g) unpack_group(gather_group<0>(row + group_bytes * g), centroid, v + 4 * g);
        unpack_group(gather_group<4>(row + D / 32 * group_bytes - group_bytes), centroid, v + D / 8 - 4);
      }
      hadamard<D>(v);
      float* out = dst + r * dst_stride;
      for (std::size_t i = 0; i < regs; ++i) _mm256_storeu_ps(out + 8 * i, _mm256_xor_ps(v[i], load_bits(sign + 8 * i)));
      for (std::size_t j = 0; j < kept.k; ++j) {
        out[kept.channels[j]] = static_cast<float>(kept.codes[j * t.rows + r]) * kept.scale[j];
      }
    }
  }
}

template <std::size_t D>
struct quantize_at {
  template <class... Args>
  static void run(Args... args) { quantize_rows<D>(args...); }
};
template <std::size_t D>
struct dequantize_at {
  template <class... Args>
  static void run(Args... args) { dequantize_rows<D>(args...); }
};

KVSCOPE_AVX2 void quantize_q3(const q3_tile& t, const fp16_bits* src, std::size_t src_stride,
                              std::uint8_t* payload, fp16_bits* scales, std::size_t out_stride,
                              std::uint8_t* side) {
  assert(valid_q3_tile(t) && src_stride % 32 == 0 && out_stride % t.head_dim == 0);
  const std::uint8_t* channels = q3_simd::write_side_record(t, src, src_stride, side, q4o_detail::write_side_header_avx2);
  q3_simd::by_head_dim<quantize_at>(t.head_dim, t, src, src_stride, payload, scales, out_stride, channels);
}

KVSCOPE_AVX2 void dequantize_q3(const q3_tile& t, const std::uint8_t* payload,
                                const fp16_bits* scales, std::size_t in_stride,
                                const std::uint8_t* side, float* dst, std::size_t dst_stride) {
  assert(valid_q3_tile(t) && in_stride % t.head_dim == 0);
  q3_simd::by_head_dim<dequantize_at>(t.head_dim, t, payload, scales, in_stride, side, dst, dst_stride);
}

constexpr q3_kernel_set avx2_set{"avx2", quantize_q3, dequantize_q3};

}  // namespace

const q3_kernel_set* avx2_q3_kernels() noexcept {
  return avx2_q4o_kernels() != nullptr ? &avx2_set : nullptr;
}

}  // namespace kvscope

#else

namespace kvscope {
const q3_kernel_set* avx2_q3_kernels() noexcept { return nullptr; }
}  // namespace kvscope

#endif
