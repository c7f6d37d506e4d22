// AVX2 + F16C q4o kernels, matching q4o_scalar.cpp bit for bit. The q4 part of a tile goes
// through the AVX2 q4 kernels (quant/kernels.hpp) on a copy of the rows in which each outlier
// channel holds its stand-in's value; rows are copied contiguously, so a whole tile of 16 rows of
// 128 is 64 groups and the q4 quantizer runs on full batches of 8 groups. As in kernels_avx2.cpp,
// every function carries a target attribute instead of the file building with -mavx2.
#include "quant/q4o.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <cstring>

#include "quant/kernels.hpp"

#define KVSCOPE_AVX2 __attribute__((target("avx2,f16c,fma")))

namespace kvscope {
namespace {

constexpr std::size_t scratch_halves = 4096;  // rows copied at a time: 8 KiB, stays in L1
// Rows requested ahead of the channel-maxima pass, 2 KiB at head_dim 128 (as the q4 quantizer's
// distance, kernels_avx2.cpp): the q4 kernels then run on the in-cache copy, not the stream.
constexpr std::size_t prefetch_rows = 8;

// Largest |x| of each channel over the rows, as fp16 bits without sign, 16 channels a vector.
// Row by row, so the tile streams in order (column-wise the loads missed the cache in turn).
KVSCOPE_AVX2 void channel_magnitudes(const q4o_tile& t, const fp16_bits* src, std::size_t stride,
                                     std::uint16_t* magnitude) {
  const __m256i mask = _mm256_set1_epi16(0x7FFF);
  __m256i m[q4o_max_head_dim / 16];
  const std::size_t vectors = t.head_dim / 16;
  for (std::size_t i = 0; i < vectors; ++i) m[i] = _mm256_setzero_si256();
  for (std::size_t r = 0; r < t.rows; ++r) {
    const auto* row = reinterpret_cast<const __m256i*>(src + r * stride);
    // The first touch of the tile: ask for the row `prefetch_rows` ahead, past the tile only when
    // tiles lie back to back (the next one is then read next).
    if (r + prefetch_rows < t.rows || stride == t.head_dim) {
      // An integer address: past the tile, pointer arithmetic would be undefined.
      const std::uintptr_t ahead = reinterpret_cast<std::uintptr_t>(src + r * stride) +
                                   prefetch_rows * stride * sizeof(fp16_bits);
      for (std::size_t line = 0; line < t.head_dim * sizeof(fp16_bits); line += 64) {
        _mm_prefetch(reinterpret_cast<const char*>(ahead + line), _MM_HINT_T0);
      }
    }
    for (std::size_t i = 0; i < vectors; ++i) {
      m[i] = _mm256_max_epu16(m[i], _mm256_and_si256(_mm256_loadu_si256(row + i), mask));
    }
  }
  for (std::size_t i = 0; i < vectors; ++i) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(magnitude + 16 * i), m[i]);
  }
}

// q4o_detail::pick_channels without its unpredictable insertions: k rounds of a vector max over
// the keys (magnitude above the inverted index, all distinct), each round zeroing its winner.
// The same channels, as the keys define them (the tests compare the side records).
KVSCOPE_AVX2 void pick_channels_avx2(const std::uint16_t* magnitude, std::size_t head_dim, std::size_t k,
                                     std::uint8_t* channels) {
  alignas(32) std::uint32_t keys[q4o_max_head_dim];
  const __m256i step = _mm256_set1_epi32(8);
  __m256i inverted = _mm256_setr_epi32(255, 254, 253, 252, 251, 250, 249, 248);
  for (std::size_t c = 0; c < head_dim; c += 8, inverted = _mm256_sub_epi32(inverted, step)) {
    const __m256i m = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(magnitude + c)));
    const __m256i key = _mm256_or_si256(_mm256_slli_epi32(m, 8), inverted);
    _mm256_store_si256(reinterpret_cast<__m256i*>(keys + c), key);
  }
  for (std::size_t j = 0; j < k; ++j) {
    __m256i best = _mm256_load_si256(reinterpret_cast<const __m256i*>(keys));
    for (std::size_t c = 8; c < head_dim; c += 8) {
      best = _mm256_max_epu32(best, _mm256_load_si256(reinterpret_cast<const __m256i*>(keys + c)));
    }
    __m128i b = _mm_max_epu32(_mm256_castsi256_si128(best), _mm256_extracti128_si256(best, 1));
    b = _mm_max_epu32(b, _mm_shuffle_epi32(b, 0x4E));
    b = _mm_max_epu32(b, _mm_shuffle_epi32(b, 0xB1));
    const auto low = static_cast<std::uint32_t>(_mm_cvtsi128_si32(b)) & 0xFFu;
    const auto channel = static_cast<std::uint8_t>(255u - low);
    channels[j] = channel;
    keys[channel] = 0;  // below every remaining key: each has a nonzero index or magnitude part
  }
  std::sort(channels, channels + k);
}

KVSCOPE_AVX2 void quantize_q4o(const q4o_tile& t, const fp16_bits* src, std::size_t src_stride,
                               std::uint8_t* payload, fp16_bits* scales, std::size_t out_stride,
                               std::uint8_t* side) {
  assert(valid_q4o_tile(t) && src_stride % 32 == 0 && out_stride % 32 == 0);
  const std::size_t d = t.head_dim, k = t.channels;
  std::array<float, q4o_max_channels> inv{};
  q4o_detail::write_side_header_avx2(t, src, src_stride, side, inv.data());
  const std::uint8_t* channels = side + k * sizeof(fp16_bits);
  auto* codes = reinterpret_cast<std::int8_t*>(side + k * (sizeof(fp16_bits) + 1));
  std::array<std::uint8_t, q4o_max_channels> stand_in;
  q4o_detail::stand_ins(channels, k, stand_in.data());
  const quantize_fn q4 = avx2_kernels()->quantize[ordinal(precision::q4)];
  alignas(32) fp16_bits rows[scratch_halves];
  alignas(32) fp16_bits column[scratch_halves / 32 + 8] = {};  // one channel of the chunk's rows
  const std::size_t chunk = scratch_halves / d;
  for (std::size_t r0 = 0; r0 < t.rows; r0 += chunk) {
    const std::size_t n = std::min(chunk, t.rows - r0);
    const fp16_bits* x = src + r0 * src_stride;
    // Back-to-back rows in one copy: row by row, the copies became 16 library calls a tile.
    if (src_stride == d) {
      std::memcpy(rows, x, n * d * sizeof(fp16_bits));
    } else {
      for (std::size_t r = 0; r < n; ++r) {
        std::memcpy(rows + r * d, x + r * src_stride, d * sizeof(fp16_bits));
      }
    }
    for (std::size_t r = 0; r < n; ++r) {
      for (std::size_t j = 0; j < k; ++j) rows[r * d + channels[j]] = x[r * src_stride + stand_in[j]];
    }
    if (out_stride == d) {
      q4(rows, n * d / 32, payload + r0 * d / 2, scales + r0 * d / 16);
    } else {
      for (std::size_t r = 0; r < n; ++r) {
        q4(rows + r * d, d / 32, payload + (r0 + r) * out_stride / 2, scales + (r0 + r) * out_stride / 16);
      }
    }
    for (std::size_t j = 0; j < k; ++j) {
      for (std::size_t r = 0; r < n; ++r) column[r] = x[r * src_stride + channels[j]];
      q4o_detail::outlier_codes_avx2(column, n, inv[j], codes + j * t.rows + r0);
    }
  }
}

KVSCOPE_AVX2 void dequantize_q4o(const q4o_tile& t, const std::uint8_t* payload,
                                 const fp16_bits* scales, std::size_t in_stride,
                                 const std::uint8_t* side, float* dst, std::size_t dst_stride) {
  assert(valid_q4o_tile(t) && in_stride % 32 == 0);
  const std::size_t d = t.head_dim, k = t.channels;
  const std::uint8_t* channels = side + k * sizeof(fp16_bits);
  const auto* codes = reinterpret_cast<const std::int8_t*>(channels + k);
  const dequantize_fn q4 = avx2_kernels()->dequantize[ordinal(precision::q4)];
  if (in_stride == d && dst_stride == d) {
    q4(payload, scales, t.rows * d / 32, dst);
  } else {
    for (std::size_t r = 0; r < t.rows; ++r) {
      q4(payload + r * in_stride / 2, scales + r * in_stride / 16, d / 32, dst + r * dst_stride);
    }
  }
  for (std::size_t j = 0; j < k; ++j) {
    fp16_bits d16;
    std::memcpy(&d16, side + j * sizeof(fp16_bits), sizeof d16);
    const __m256 dj = _mm256_set1_ps(fp16_to_f32(d16));
    const std::int8_t* q = codes + j * t.rows;
    float* out = dst + channels[j];
    std::size_t r = 0;
    for (; r + 8 <= t.rows; r += 8) {
      const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + r));
      alignas(32) float v[8];
      _mm256_store_ps(v, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes)), dj));
      for (std::size_t i = 0; i < 8; ++i) out[(r + i) * dst_stride] = v[i];
    }
    for (; r < t.rows; ++r) out[r * dst_stride] = static_cast<float>(q[r]) * _mm256_cvtss_f32(dj);
  }
}

constexpr q4o_kernel_set avx2_set{"avx2", quantize_q4o, dequantize_q4o};

}  // namespace

namespace q4o_detail {

KVSCOPE_AVX2 void write_side_header_avx2(const q4o_tile& t, const fp16_bits* src,
                                         std::size_t src_stride, std::uint8_t* side,
                                         float* inv) noexcept {
  alignas(32) std::array<std::uint16_t, q4o_max_head_dim> magnitude;
  channel_magnitudes(t, src, src_stride, magnitude.data());
  std::uint8_t* channels = side + t.channels * sizeof(fp16_bits);
  pick_channels_avx2(magnitude.data(), t.head_dim, t.channels, channels);
  for (std::size_t j = 0; j < t.channels; ++j) {  // scalar, the same operations as q4o.cpp
    const fp16_bits d16 = f32_to_fp16(fp16_to_f32(magnitude[channels[j]]) / 127.0f);
    const float dj = fp16_to_f32(d16);
    inv[j] = dj != 0.0f ? 1.0f / dj : 0.0f;
    std::memcpy(side + j * sizeof(fp16_bits), &d16, sizeof d16);
  }
}

// Codes of one outlier channel for `rows` rows: q = rne(x * inv) saturated to [-127, 127], which
// equals the scalar clamp then round as |x * inv| stays below 256 (see q8_group).
KVSCOPE_AVX2 void outlier_codes_avx2(const fp16_bits* column, std::size_t rows, float inv,
                                     std::int8_t* codes) noexcept {
  const __m256 scale = _mm256_set1_ps(inv);
  for (std::size_t r = 0; r < rows; r += 8) {
    const __m256 x = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(column + r)));
    const __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(x, scale));
    const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    const __m128i bytes = _mm_max_epi8(_mm_packs_epi16(words, words), _mm_set1_epi8(-127));
    if (r + 8 <= rows) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(codes + r), bytes);
    } else {
      std::int8_t out[16];
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), bytes);
      std::memcpy(codes + r, out, rows - r);
    }
  }
}

}  // namespace q4o_detail

const q4o_kernel_set* avx2_q4o_kernels() noexcept {
  return avx2_kernels() != nullptr ? &avx2_set : nullptr;
}

}  // namespace kvscope

#else

namespace kvscope {
const q4o_kernel_set* avx2_q4o_kernels() noexcept { return nullptr; }
}  // namespace kvscope

#endif
