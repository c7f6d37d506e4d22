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

#define KVSCOPE_AVX2 __attribute__((target("avx2,f16c,fma")))
#define KVSCOPE_AVX2_INLINE __attribute__((target("avx2,f16c,fma"), always_inline)) inline

namespace kvscope {
namespace {

constexpr std::size_t group_bytes = 12;

KVSCOPE_AVX2_INLINE __m256 load_bits(const std::uint32_t* bits) {
  return _mm256_load_ps(reinterpret_cast<const float*>(bits));
}

// One in-register stage: lanes (i, i ^ len) become (a + b, a - b) with a the lower lane, as
// partner + (lane with its sign flipped in the upper lanes): b + a, and a + (-b), which round
// exactly as a + b and a - b. `swap` holds each lane's partner, `upper` the sign bits.
KVSCOPE_AVX2_INLINE __m256 butterfly(__m256 v, __m256 swap, __m256 upper) {
  return _mm256_add_ps(swap, _mm256_xor_ps(v, upper));
}

// q3_scalar.cpp's hadamard on a row held in D / 8 registers; with D a constant the loops unroll
// and the row stays in registers (D = 128: 16).
template <std::size_t D>
KVSCOPE_AVX2_INLINE void hadamard(__m256* v) {
  constexpr std::size_t regs = D / 8, n = q3_rotation_size(D) / 8;
  const __m256 m = _mm256_set1_ps(-0.0f), zero = _mm256_setzero_ps();
  const __m256 odd = _mm256_blend_ps(zero, m, 0xAA), pairs = _mm256_blend_ps(zero, m, 0xCC);
  const __m256 half = _mm256_blend_ps(zero, m, 0xF0);
#pragma GCC unroll 32
  for (std::size_t i = 0; i < regs; ++i) {
    v[i] = butterfly(v[i], _mm256_permute_ps(v[i], 0xB1), odd);
    v[i] = butterfly(v[i], _mm256_permute_ps(v[i], 0x4E), pairs);
    v[i] = butterfly(v[i], _mm256_permute2f128_ps(v[i], v[i], 0x01), half);
  }
#pragma GCC unroll 8
  for (std::size_t len = 1; len < n; len *= 2) {
#pragma GCC unroll 32
    for (std::size_t i = 0; i < regs; i += 2 * len) {
#pragma GCC unroll 32
      for (std::size_t j = i; j < i + len; ++j) {
        const __m256 a = v[j], b = v[j + len];
        v[j] = _mm256_add_ps(a, b);
        v[j + len] = _mm256_sub_ps(a, b);
      }
    }
  }
}

// Codes of 4 registers (one group of 32; lane j of register s is value 8 s + j) into 12 bytes:
// lane j's 4 codes make 12 bits, two lanes 24 bits of a 64-bit element, 3 bytes each.
KVSCOPE_AVX2_INLINE void pack_group(const __m256* y, __m256 inv, const __m256* threshold,
                                    std::uint8_t* out) {
  __m256i word = _mm256_setzero_si256();
  const __m256 magnitude_bits = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
  for (int s = 0; s < 4; ++s) {
    const __m256 u = _mm256_mul_ps(y[s], inv);
    const __m256 a = _mm256_and_ps(u, magnitude_bits);
    __m256i m = _mm256_setzero_si256();
    for (int j = 0; j < 3; ++j) {  // a true compare is -1: subtracting counts it
      m = _mm256_sub_epi32(m, _mm256_castps_si256(_mm256_cmp_ps(a, threshold[j], _CMP_GT_OQ)));
    }
    // 4 + m, or 3 - m below zero: m ^ 4 or m ^ 3, 4 plus the sign bit spread to -1.
    const __m256i side = _mm256_add_epi32(_mm256_set1_epi32(4), _mm256_srai_epi32(_mm256_castps_si256(u), 31));
    word = _mm256_or_si256(word, _mm256_sll_epi32(_mm256_xor_si256(m, side), _mm_cvtsi32_si128(3 * s)));
  }
  const __m256i pair = _mm256_or_si256(_mm256_and_si256(word, _mm256_set1_epi64x(0xFFF)),
                                       _mm256_srli_epi64(word, 20));
  const __m256i bytes = _mm256_shuffle_epi8(
      pair, _mm256_setr_epi8(0, 1, 2, 8, 9, 10, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 8, 9,
                             10, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
  const __m128i all = _mm_or_si128(_mm256_castsi256_si128(bytes),
                                   _mm_slli_si128(_mm256_extracti128_si256(bytes, 1), 6));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), all);
  const auto last = static_cast<std::uint32_t>(_mm_extract_epi32(all, 2));
  std::memcpy(out + 8, &last, 4);
}

// The inverse: each lane gathers the 2 bytes holding its 12 bits and shifts them down; then
// code s is 3 bits of it, and its float one permute of the row's scaled centroids.
KVSCOPE_AVX2_INLINE void unpack_group(const std::uint8_t* in, __m256 centroid, __m256* y) {
  std::uint32_t last;
  std::memcpy(&last, in + 8, 4);
  const __m128i bytes = _mm_insert_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in)),
                                         static_cast<int>(last), 2);
  const __m256i gathered = _mm256_shuffle_epi8(
      _mm256_broadcastsi128_si256(bytes),
      _mm256_setr_epi8(0, 1, -1, -1, 1, 2, -1, -1, 3, 4, -1, -1, 4, 5, -1, -1, 6, 7, -1, -1, 7, 8, -1,
                       -1, 9, 10, -1, -1, 10, 11, -1, -1));
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

// The side record's int8 codes, one channel at a time from a gathered column.
KVSCOPE_AVX2 void outlier_codes(const q3_tile& t, const fp16_bits* src, std::size_t src_stride,
                                const float* inv, std::uint8_t* side) {
  const std::uint8_t* channels = side + t.channels * sizeof(fp16_bits);
  auto* codes = reinterpret_cast<std::int8_t*>(side + t.channels * (sizeof(fp16_bits) + 1));
  constexpr std::size_t column_rows = 128;
  for (std::size_t j = 0; j < t.channels; ++j) {
    alignas(32) fp16_bits column[column_rows + 8] = {};
    for (std::size_t r0 = 0; r0 < t.rows; r0 += column_rows) {
      const std::size_t n = std::min(column_rows, t.rows - r0);
      for (std::size_t r = 0; r < n; ++r) column[r] = src[(r0 + r) * src_stride + channels[j]];
      q4o_detail::outlier_codes_avx2(column, n, inv[j], codes + j * t.rows + r0);
    }
  }
}

// q3_detail::row_scale then inverse_step in vector registers, without the calls and software
// fp16 conversions of the scalar ones (the same operations: F16C rounds as f32_to_fp16 does).
// Stores the scale; returns 1 / (s * sqrt(n)) in the low lane.
template <std::size_t D>
KVSCOPE_AVX2_INLINE __m128 row_scale(__m256 lanes, fp16_bits* scale) {
  const __m128 t = _mm_add_ps(_mm256_castps256_ps128(lanes), _mm256_extractf128_ps(lanes, 1));
  const __m128 u = _mm_add_ps(t, _mm_movehl_ps(t, t));  // (l0 + l4) + (l2 + l6), (l1 + l5) + (l3 + l7)
  const __m128 sum = _mm_add_ss(u, _mm_shuffle_ps(u, u, 1));
  constexpr auto values = static_cast<float>(q3_rotation_size(D) * D);
  const __m128i half = _mm_cvtps_ph(_mm_sqrt_ss(_mm_div_ss(sum, _mm_set_ss(values))), 0);
  *scale = static_cast<fp16_bits>(_mm_extract_epi16(half, 0));
  const __m128 step = _mm_mul_ss(_mm_cvtph_ps(half), _mm_set_ss(std::sqrt(static_cast<float>(q3_rotation_size(D)))));
  const __m128 inv = _mm_div_ss(_mm_set_ss(1.0f), step);
  return _mm_andnot_ps(_mm_cmpeq_ss(step, _mm_setzero_ps()), inv);  // 0 for a zero scale
}

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
  for (std::size_t r = 0; r < t.rows; ++r) {
    const fp16_bits* x = src + r * src_stride;
    __m256 v[regs];
    for (std::size_t i = 0; i < regs; ++i) {
      const __m256 h = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + 8 * i)));
      v[i] = _mm256_and_ps(_mm256_xor_ps(h, load_bits(sign + 8 * i)), load_bits(keep.data() + 8 * i));
    }
    hadamard<D>(v);
    __m256 lanes = _mm256_setzero_ps();
    for (std::size_t i = 0; i < regs; ++i) lanes = _mm256_add_ps(lanes, _mm256_mul_ps(v[i], v[i]));
    const __m256 step = _mm256_broadcastss_ps(row_scale<D>(lanes, scales + r * out_stride / D));
    std::uint8_t* row = payload + q3_payload_bytes(r * out_stride);
    for (std::size_t g = 0; g < D / 32; ++g) pack_group(v + 4 * g, step, threshold, row + group_bytes * g);
  }
}

template <std::size_t D>
KVSCOPE_AVX2 void dequantize_rows(const q3_tile& t, const std::uint8_t* payload,
                                  const fp16_bits* scales, std::size_t in_stride,
                                  const std::uint8_t* side, float* dst, std::size_t dst_stride) {
  constexpr std::size_t regs = D / 8;
  const std::uint32_t* sign = q3_sign_bits();
  const __m256 unit = _mm256_loadu_ps(table_of(t.codebook).centroid.data());
  const outliers kept(t, side);
  for (std::size_t r = 0; r < t.rows; ++r) {
    // q3_detail::decode_step with F16C's conversion.
    const __m128 scale = _mm_cvtph_ps(_mm_cvtsi32_si128(scales[r * in_stride / D]));
    const __m128 step = _mm_div_ss(scale, _mm_set_ss(std::sqrt(static_cast<float>(q3_rotation_size(D)))));
    const __m256 centroid = _mm256_mul_ps(unit, _mm256_broadcastss_ps(step));
    const std::uint8_t* row = payload + q3_payload_bytes(r * in_stride);
    __m256 v[regs];
    for (std::size_t g = 0; g < D / 32; ++g) unpack_group(row + group_bytes * g, centroid, v + 4 * g);
    hadamard<D>(v);
    float* out = dst + r * dst_stride;
    for (std::size_t i = 0; i < regs; ++i) _mm256_storeu_ps(out + 8 * i, _mm256_xor_ps(v[i], load_bits(sign + 8 * i)));
    for (std::size_t j = 0; j < kept.k; ++j) {
      out[kept.channels[j]] = static_cast<float>(kept.codes[j * t.rows + r]) * kept.scale[j];
    }
  }
}

// Every head_dim the format takes, as a constant.
template <template <std::size_t> class Rows, class... Args>
void by_head_dim(std::size_t d, Args... args) {
  switch (d / 32) {
    case 1: return Rows<32>::run(args...);
    case 2: return Rows<64>::run(args...);
    case 3: return Rows<96>::run(args...);
    case 4: return Rows<128>::run(args...);
    case 5: return Rows<160>::run(args...);
    case 6: return Rows<192>::run(args...);
    case 7: return Rows<224>::run(args...);
    default: return Rows<256>::run(args...);
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
  std::array<float, q4o_max_channels> inv{};
  if (t.channels > 0) {
    q4o_detail::write_side_header_avx2(outlier_tile(t), src, src_stride, side, inv.data());
    outlier_codes(t, src, src_stride, inv.data(), side);
  }
  const std::uint8_t* channels = side + t.channels * sizeof(fp16_bits);
  by_head_dim<quantize_at>(t.head_dim, t, src, src_stride, payload, scales, out_stride, channels);
}

KVSCOPE_AVX2 void dequantize_q3(const q3_tile& t, const std::uint8_t* payload,
                                const fp16_bits* scales, std::size_t in_stride,
                                const std::uint8_t* side, float* dst, std::size_t dst_stride) {
  assert(valid_q3_tile(t) && in_stride % t.head_dim == 0);
  by_head_dim<dequantize_at>(t.head_dim, t, payload, scales, in_stride, side, dst, dst_stride);
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
