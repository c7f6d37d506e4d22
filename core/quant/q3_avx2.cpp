// AVX2 + F16C q3 kernels, matching q3_scalar.cpp bit for bit. A row lives in registers, 8 values
// each: the first three Hadamard stages (len 1, 2, 4) pair lanes of one register, the others pair
// whole registers; the 3-bit code of 8 values becomes their float with one lane permute of the
// row's 8 scaled centroids. As in kernels_avx2.cpp, every function carries a target attribute
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

constexpr std::size_t max_registers = q4o_max_head_dim / 8;
constexpr std::size_t group_bytes = 12;

// One in-register stage: lanes (i, i ^ len) become (a + b, a - b) with a the lower lane; `swap`
// holds each lane's partner, `upper` selects the lanes that take the difference.
template <int upper>
KVSCOPE_AVX2_INLINE __m256 butterfly(__m256 v, __m256 swap) {
  return _mm256_blend_ps(_mm256_add_ps(v, swap), _mm256_sub_ps(swap, v), upper);
}

// q3_scalar.cpp's hadamard on a row held in d / 8 registers.
KVSCOPE_AVX2_INLINE void hadamard(__m256* v, std::size_t d) {
  const std::size_t regs = d / 8, n = q3_rotation_size(d) / 8;
  for (std::size_t i = 0; i < regs; ++i) {
    v[i] = butterfly<0xAA>(v[i], _mm256_permute_ps(v[i], 0xB1));
    v[i] = butterfly<0xCC>(v[i], _mm256_permute_ps(v[i], 0x4E));
    v[i] = butterfly<0xF0>(v[i], _mm256_permute2f128_ps(v[i], v[i], 0x01));
  }
  for (std::size_t len = 1; len < n; len *= 2) {
    for (std::size_t i = 0; i < regs; i += 2 * len) {
      for (std::size_t j = i; j < i + len; ++j) {
        const __m256 a = v[j], b = v[j + len];
        v[j] = _mm256_add_ps(a, b);
        v[j + len] = _mm256_sub_ps(a, b);
      }
    }
  }
}

KVSCOPE_AVX2_INLINE __m256 load_bits(const std::uint32_t* bits) {
  return _mm256_load_ps(reinterpret_cast<const float*>(bits));
}

// Codes of 4 registers (one group of 32) into 8 bytes of low bits and 4 of high bits.
KVSCOPE_AVX2_INLINE void pack_group(const __m256* y, __m256 inv, const __m256* threshold,
                                    std::uint8_t* out) {
  __m256i low = _mm256_setzero_si256();
  std::uint32_t high = 0;
  for (int s = 0; s < 4; ++s) {
    const __m256 u = _mm256_mul_ps(y[s], inv);
    __m256i code = _mm256_setzero_si256();
    for (int i = 0; i < 7; ++i) {  // a true compare is -1: subtracting counts it
      code = _mm256_sub_epi32(code, _mm256_castps_si256(_mm256_cmp_ps(u, threshold[i], _CMP_GT_OQ)));
    }
    low = _mm256_or_si256(low, _mm256_sll_epi32(_mm256_and_si256(code, _mm256_set1_epi32(3)),
                                                _mm_cvtsi32_si128(2 * s)));
    const auto bit2 = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32(code, 29)));
    high |= static_cast<std::uint32_t>(bit2) << (8 * s);
  }
  const __m128i words = _mm_packus_epi32(_mm256_castsi256_si128(low), _mm256_extracti128_si256(low, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(words, words));
  for (int b = 0; b < 4; ++b) out[8 + b] = static_cast<std::uint8_t>(high >> (8 * b));
}

KVSCOPE_AVX2_INLINE void unpack_group(const std::uint8_t* in, __m256 centroid, __m256* y) {
  std::uint64_t low8;
  std::uint32_t high;
  std::memcpy(&low8, in, 8);
  std::memcpy(&high, in + 8, 4);
  const __m256i low = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(low8)));
  const __m256i hi = _mm256_set1_epi32(static_cast<int>(high));
  const __m256i three = _mm256_set1_epi32(3), one = _mm256_set1_epi32(1);
  __m256i shift = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int s = 0; s < 4; ++s, shift = _mm256_add_epi32(shift, _mm256_set1_epi32(8))) {
    const __m256i lo2 = _mm256_and_si256(_mm256_srl_epi32(low, _mm_cvtsi32_si128(2 * s)), three);
    const __m256i b2 = _mm256_slli_epi32(_mm256_and_si256(_mm256_srlv_epi32(hi, shift), one), 2);
    y[s] = _mm256_permutevar8x32_ps(centroid, _mm256_or_si256(lo2, b2));
  }
}

KVSCOPE_AVX2 void quantize_q3(const q3_tile& t, const fp16_bits* src, std::size_t src_stride,
                              std::uint8_t* payload, fp16_bits* scales, std::size_t out_stride,
                              std::uint8_t* side) {
  assert(valid_q3_tile(t) && src_stride % 32 == 0 && out_stride % t.head_dim == 0);
  const std::size_t d = t.head_dim, k = t.channels, regs = d / 8;
  std::array<float, q4o_max_channels> inv{};
  if (k > 0) q4o_detail::write_side_header_avx2(outlier_tile(t), src, src_stride, side, inv.data());
  const std::uint8_t* channels = side + k * sizeof(fp16_bits);
  auto* codes = reinterpret_cast<std::int8_t*>(side + k * (sizeof(fp16_bits) + 1));
  constexpr std::size_t column_rows = 128;  // one channel's halves gathered at a time
  for (std::size_t j = 0; j < k; ++j) {
    alignas(32) fp16_bits column[column_rows + 8] = {};
    for (std::size_t r0 = 0; r0 < t.rows; r0 += column_rows) {
      const std::size_t n = std::min(column_rows, t.rows - r0);
      for (std::size_t r = 0; r < n; ++r) column[r] = src[(r0 + r) * src_stride + channels[j]];
      q4o_detail::outlier_codes_avx2(column, n, inv[j], codes + j * t.rows + r0);
    }
  }
  // Outlier channels enter the rotation as +0: all ones but theirs.
  alignas(32) std::array<std::uint32_t, q4o_max_head_dim> keep;
  keep.fill(0xFFFFFFFFu);
  for (std::size_t j = 0; j < k; ++j) keep[channels[j]] = 0;
  const std::uint32_t* sign = q3_sign_bits();
  const q3_table& table = table_of(t.codebook);
  __m256 threshold[7];
  for (int i = 0; i < 7; ++i) threshold[i] = _mm256_set1_ps(table.threshold[i]);
  __m256 v[max_registers];
  for (std::size_t r = 0; r < t.rows; ++r) {
    const fp16_bits* x = src + r * src_stride;
    __m256 lanes = _mm256_setzero_ps();
    for (std::size_t i = 0; i < regs; ++i) {
      const __m256 h = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + 8 * i)));
      v[i] = _mm256_and_ps(_mm256_xor_ps(h, load_bits(sign + 8 * i)), load_bits(keep.data() + 8 * i));
    }
    hadamard(v, d);
    for (std::size_t i = 0; i < regs; ++i) lanes = _mm256_add_ps(lanes, _mm256_mul_ps(v[i], v[i]));
    alignas(32) float lane_sums[8];
    _mm256_store_ps(lane_sums, lanes);
    const fp16_bits scale = q3_detail::row_scale(lane_sums, d);
    scales[r * out_stride / d] = scale;
    const __m256 step = _mm256_set1_ps(q3_detail::inverse_step(scale, d));
    std::uint8_t* row = payload + q3_payload_bytes(r * out_stride);
    for (std::size_t g = 0; g < d / 32; ++g) pack_group(v + 4 * g, step, threshold, row + group_bytes * g);
  }
}

KVSCOPE_AVX2 void dequantize_q3(const q3_tile& t, const std::uint8_t* payload,
                                const fp16_bits* scales, std::size_t in_stride,
                                const std::uint8_t* side, float* dst, std::size_t dst_stride) {
  assert(valid_q3_tile(t) && in_stride % t.head_dim == 0);
  const std::size_t d = t.head_dim, regs = d / 8;
  const std::uint32_t* sign = q3_sign_bits();
  const q3_table& table = table_of(t.codebook);
  const __m256 unit = _mm256_loadu_ps(table.centroid.data());
  __m256 v[max_registers];
  for (std::size_t r = 0; r < t.rows; ++r) {
    const __m256 centroid = _mm256_mul_ps(unit, _mm256_set1_ps(q3_detail::decode_step(scales[r * in_stride / d], d)));
    const std::uint8_t* row = payload + q3_payload_bytes(r * in_stride);
    for (std::size_t g = 0; g < d / 32; ++g) unpack_group(row + group_bytes * g, centroid, v + 4 * g);
    hadamard(v, d);
    float* out = dst + r * dst_stride;
    for (std::size_t i = 0; i < regs; ++i) _mm256_storeu_ps(out + 8 * i, _mm256_xor_ps(v[i], load_bits(sign + 8 * i)));
    if (t.channels > 0) restore_q4o_outliers(outlier_tile(t), side, r, out);
  }
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
