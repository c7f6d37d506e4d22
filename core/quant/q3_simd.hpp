#pragma once
// What the AVX2 and AVX-512 q3 kernels share (q3_avx2.cpp, q3_avx512.cpp): the side record, the
// batch's scales and the dispatch on head_dim. Include only in x86-64 builds with GCC or clang;
// the functions carry AVX2 target attributes, so a caller must have checked the CPU.
#include <immintrin.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "quant/q3.hpp"

#define KVSCOPE_Q3_AVX2_INLINE __attribute__((target("avx2,f16c,fma"), always_inline)) inline

namespace kvscope::q3_simd {

// Rows a batch of the row loops: one vector holds their scales, so the division, square root and
// fp16 rounding of a row's scale run once for 8 rows, off the path of each row's rotation.
inline constexpr std::size_t batch_rows = 8;

// A row's sum of squares from its 8 lane sums, in q3_detail::row_scale's order.
KVSCOPE_Q3_AVX2_INLINE float lane_sum(__m256 lanes) {
  const __m128 t = _mm_add_ps(_mm256_castps256_ps128(lanes), _mm256_extractf128_ps(lanes, 1));
  const __m128 u = _mm_add_ps(t, _mm_movehl_ps(t, t));  // (l0 + l4) + (l2 + l6), (l1 + l5) + (l3 + l7)
  return _mm_cvtss_f32(_mm_add_ss(u, _mm_shuffle_ps(u, u, 1)));
}

// q3_detail::row_scale then inverse_step for a batch's `n` rows, lane b row b (the same
// operations: F16C rounds as f32_to_fp16 does). Stores the scales, `scale_stride` apart; returns
// each row's 1 / (s * sqrt(n)).
template <std::size_t D>
KVSCOPE_Q3_AVX2_INLINE __m256 row_scales(const float* sums, std::size_t n, fp16_bits* scales,
                                         std::size_t scale_stride) {
  constexpr auto values = static_cast<float>(q3_rotation_size(D) * D);
  const __m128i half = _mm256_cvtps_ph(_mm256_sqrt_ps(_mm256_div_ps(_mm256_load_ps(sums), _mm256_set1_ps(values))), 0);
  alignas(16) fp16_bits h[batch_rows];
  _mm_store_si128(reinterpret_cast<__m128i*>(h), half);
  for (std::size_t b = 0; b < n; ++b) scales[b * scale_stride] = h[b];
  const __m256 step = _mm256_mul_ps(_mm256_cvtph_ps(half), _mm256_set1_ps(std::sqrt(static_cast<float>(q3_rotation_size(D)))));
  const __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f), step);
  return _mm256_andnot_ps(_mm256_cmp_ps(step, _mm256_setzero_ps(), _CMP_EQ_OQ), inv);  // 0 for a zero scale
}

// A key tile's side record (quant/q3.hpp), with q4o's functions: `header` writes its head (as
// q4o_detail::write_side_header_avx2 or _avx512), AVX2 gathers the codes. Returns the outlier
// channels' indices.
inline const std::uint8_t* write_side_record(const q3_tile& t, const fp16_bits* src, std::size_t src_stride,
                                             std::uint8_t* side,
                                             void (*header)(const q4o_tile&, const fp16_bits*, std::size_t,
                                                            std::uint8_t*, float*) noexcept) {
  std::array<float, q4o_max_channels> inv{};
  const std::uint8_t* channels = side + t.channels * sizeof(fp16_bits);
  if (t.channels > 0) {
    header(outlier_tile(t), src, src_stride, side, inv.data());
    auto* codes = reinterpret_cast<std::int8_t*>(side + t.channels * (sizeof(fp16_bits) + 1));
    for (std::size_t j = 0; j < t.channels; ++j) {
      q4o_detail::outlier_codes_avx2(src, src_stride, t.rows, channels[j], inv[j], codes + j * t.rows);
    }
  }
  return channels;
}

// Every head_dim the format takes, as a constant: Rows<D>::run(args...).
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

}  // namespace kvscope::q3_simd
