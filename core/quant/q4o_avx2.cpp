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
#define KVSCOPE_AVX2_INLINE __attribute__((target("avx2,f16c,fma"), always_inline)) inline

namespace kvscope {
namespace {

constexpr std::size_t scratch_halves = 4096;  // rows copied at a time: 8 KiB, stays in L1
// Rows requested ahead of the channel-maxima pass within a tile, 2 KiB at head_dim 128 (as the q4
// quantizer's distance, kernels_avx2.cpp), for tiles the hardware prefetcher has not seen coming.
constexpr std::size_t prefetch_rows = 8;

// Largest |x| of each channel over the rows, as fp16 bits without sign, 16 channels a vector.
// Row by row, so the tile streams in order (column-wise the loads missed the cache in turn). With
// `copy`, the first `copy_rows` rows also go there back to back: q4o quantizes a copy, and taking
// it here reads the tile from memory once.
KVSCOPE_AVX2 void channel_magnitudes(const q4o_tile& t, const fp16_bits* src, std::size_t stride,
                                     std::uint16_t* magnitude, fp16_bits* copy = nullptr,
                                     std::size_t copy_rows = 0) {
  // Sizes in locals: the copy's stores could alias the tile, and the loop reloaded them.
  const std::size_t rows = t.rows, d = t.head_dim, vectors = d / 16;
  const __m256i mask = _mm256_set1_epi16(0x7FFF);
  __m256i m[q4o_max_head_dim / 16];
  for (std::size_t i = 0; i < vectors; ++i) m[i] = _mm256_setzero_si256();
  for (std::size_t r = 0; r < rows; ++r) {
    const auto* row = reinterpret_cast<const __m256i*>(src + r * stride);
    // Within the tile only: the q4o and q3 row loops request the next tiles (quantize_chunk,
    // q3_avx2.cpp), spread over a tile's work rather than in one burst here.
    if (r + prefetch_rows < rows) {
      const auto* ahead = reinterpret_cast<const char*>(src + (r + prefetch_rows) * stride);
      for (std::size_t line = 0; line < d * sizeof(fp16_bits); line += 64) _mm_prefetch(ahead + line, _MM_HINT_T0);
    }
    if (r < copy_rows) {
      auto* out = reinterpret_cast<__m256i*>(copy + r * d);
      for (std::size_t i = 0; i < vectors; ++i) {
        const __m256i x = _mm256_loadu_si256(row + i);
        m[i] = _mm256_max_epu16(m[i], _mm256_and_si256(x, mask));
        _mm256_store_si256(out + i, x);
      }
    } else {
      for (std::size_t i = 0; i < vectors; ++i) {
        m[i] = _mm256_max_epu16(m[i], _mm256_and_si256(_mm256_loadu_si256(row + i), mask));
      }
    }
  }
  for (std::size_t i = 0; i < vectors; ++i) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(magnitude + 16 * i), m[i]);
  }
}

// Lane max of 8 int32 lanes, in every lane.
KVSCOPE_AVX2_INLINE __m256i all_lanes_max(__m256i v) {
  v = _mm256_max_epi32(v, _mm256_permute2x128_si256(v, v, 0x01));
  v = _mm256_max_epi32(v, _mm256_shuffle_epi32(v, 0x4E));
  return _mm256_max_epi32(v, _mm256_shuffle_epi32(v, 0xB1));
}

// q4o_detail::pick_channels without its unpredictable insertions: over the keys (magnitude above
// the inverted index, all distinct, below 2^24), round j takes the largest key below round j - 1's
// in vector maxima kept in registers. The same channels, as the keys define them (the tests
// compare the side records). Zeroing each winner in memory instead stalled the next round's
// vector loads on the one-lane store.
KVSCOPE_AVX2 void pick_channels_avx2(const std::uint16_t* magnitude, std::size_t head_dim, std::size_t k,
                                     std::uint8_t* channels) {
  __m256i keys[q4o_max_head_dim / 8];
  const std::size_t vectors = head_dim / 8;
  const __m256i step = _mm256_set1_epi32(8);
  __m256i inverted = _mm256_setr_epi32(255, 254, 253, 252, 251, 250, 249, 248);
  for (std::size_t i = 0; i < vectors; ++i, inverted = _mm256_sub_epi32(inverted, step)) {
    const __m256i m = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(magnitude + 8 * i)));
    keys[i] = _mm256_or_si256(_mm256_slli_epi32(m, 8), inverted);
  }
  __m256i previous = _mm256_set1_epi32(0x7FFFFFFF);
  for (std::size_t j = 0; j < k; ++j) {
    __m256i even = _mm256_setzero_si256(), odd = even;  // two chains of maxima (vectors is even)
    for (std::size_t i = 0; i < vectors; i += 2) {
      even = _mm256_max_epi32(even, _mm256_and_si256(_mm256_cmpgt_epi32(previous, keys[i]), keys[i]));
      odd = _mm256_max_epi32(odd, _mm256_and_si256(_mm256_cmpgt_epi32(previous, keys[i + 1]), keys[i + 1]));
    }
    previous = all_lanes_max(_mm256_max_epi32(even, odd));
    const auto low = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(previous)) & 0xFFu;
    channels[j] = static_cast<std::uint8_t>(255u - low);
  }
  std::sort(channels, channels + k);
}

// q4o_detail::write_side_header's work, with channel_magnitudes' copy of the first rows.
KVSCOPE_AVX2 void side_header(const q4o_tile& t, const fp16_bits* src, std::size_t src_stride,
                              std::uint8_t* side, float* inv, fp16_bits* copy, std::size_t copy_rows) {
  alignas(32) std::array<std::uint16_t, q4o_max_head_dim> magnitude;
  channel_magnitudes(t, src, src_stride, magnitude.data(), copy, copy_rows);
  q4o_detail::side_header_from_magnitudes_avx2(t, magnitude.data(), side, inv);
}

// Rows a q4 call. Before each, rows 1.5 tiles on are requested (when tiles lie back to back: a
// tile is one 4 KiB page at head_dim 128, and the hardware prefetcher does not cross pages), so
// the next tile's header pass finds all of it in cache: one tile on, its last rows were asked for
// just before that pass. On 32 MiB of key tiles: 0.39 to 0.62 ns a value without, 0.31 with
// (0.28 in cache).
constexpr std::size_t piece_rows = 4;

// The q4 part of `n` rows at `rows` (back to back, outlier channels holding stand-ins), for rows
// r0 .. r0 + n of the tile.
KVSCOPE_AVX2 void quantize_chunk(const q4o_tile& t, const fp16_bits* rows, std::size_t r0, std::size_t n,
                                 const fp16_bits* src, std::size_t src_stride, std::uint8_t* payload,
                                 fp16_bits* scales, std::size_t out_stride) {
  const std::size_t d = t.head_dim;
  const quantize_fn q4 = avx2_kernels()->quantize[ordinal(precision::q4)];
  for (std::size_t p = 0; p < n; p += piece_rows) {
    const std::size_t m = std::min(piece_rows, n - p), r = r0 + p;
    if (src_stride == d) {
      q4o_detail::prefetch_ahead(src + r * d, (t.rows + t.rows / 2) * d * sizeof(fp16_bits), m * d * sizeof(fp16_bits));
    }
    if (out_stride == d) {
      if (src_stride == d) {  // the outputs the same distance on: their pages are new as often
        const std::size_t ahead = t.rows + t.rows / 2;
        q4o_detail::prefetch_ahead<true>(payload + r * d / 2, ahead * d / 2, m * d / 2);
        q4o_detail::prefetch_ahead<true>(scales + r * d / 16, ahead * d / 16 * sizeof(fp16_bits), m * d / 16 * sizeof(fp16_bits));
      }
      q4(rows + p * d, m * d / 32, payload + r * d / 2, scales + r * d / 16);
    } else {
      for (std::size_t i = 0; i < m; ++i) {
        q4(rows + (p + i) * d, d / 32, payload + (r + i) * out_stride / 2, scales + (r + i) * out_stride / 16);
      }
    }
  }
}

KVSCOPE_AVX2 void quantize_q4o(const q4o_tile& t, const fp16_bits* src, std::size_t src_stride,
                               std::uint8_t* payload, fp16_bits* scales, std::size_t out_stride,
                               std::uint8_t* side) {
  assert(valid_q4o_tile(t) && src_stride % 32 == 0 && out_stride % 32 == 0);
  const std::size_t d = t.head_dim, k = t.channels, chunk = scratch_halves / d;
  alignas(32) fp16_bits rows[scratch_halves];
  std::array<float, q4o_max_channels> inv{};
  side_header(t, src, src_stride, side, inv.data(), rows, std::min(chunk, t.rows));
  const std::uint8_t* channels = side + k * sizeof(fp16_bits);
  auto* codes = reinterpret_cast<std::int8_t*>(side + k * (sizeof(fp16_bits) + 1));
  for (std::size_t j = 0; j < k; ++j) {
    q4o_detail::outlier_codes_avx2(src, src_stride, t.rows, channels[j], inv[j], codes + j * t.rows);
  }
  std::array<std::uint8_t, q4o_max_channels> stand_in;
  q4o_detail::stand_ins(channels, k, stand_in.data());
  for (std::size_t r0 = 0; r0 < t.rows; r0 += chunk) {
    const std::size_t n = std::min(chunk, t.rows - r0);
    if (r0 > 0) {  // a tile larger than the scratch: the header copied only its first chunk
      for (std::size_t r = 0; r < n; ++r) std::memcpy(rows + r * d, src + (r0 + r) * src_stride, d * sizeof(fp16_bits));
    }
    for (std::size_t r = 0; r < n; ++r) {
      for (std::size_t j = 0; j < k; ++j) rows[r * d + channels[j]] = rows[r * d + stand_in[j]];
    }
    quantize_chunk(t, rows, r0, n, src, src_stride, payload, scales, out_stride);
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

// The channels and their scales, as q4o.cpp computes them from the same magnitudes, 8 channels a
// vector (F16C rounds as f32_to_fp16 does).
KVSCOPE_AVX2 void side_header_from_magnitudes_avx2(const q4o_tile& t, const std::uint16_t* magnitude,
                                                   std::uint8_t* side, float* inv) noexcept {
  std::uint8_t* channels = side + t.channels * sizeof(fp16_bits);
  pick_channels_avx2(magnitude, t.head_dim, t.channels, channels);
  for (std::size_t j0 = 0; j0 < t.channels; j0 += 8) {
    const std::size_t n = std::min<std::size_t>(8, t.channels - j0);
    alignas(16) fp16_bits h[8] = {};
    for (std::size_t j = 0; j < n; ++j) h[j] = magnitude[channels[j0 + j]];
    const __m256 amax = _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(h)));
    const __m128i d16 = _mm256_cvtps_ph(_mm256_div_ps(amax, _mm256_set1_ps(127.0f)), 0);
    const __m256 dj = _mm256_cvtph_ps(d16);
    const __m256 nonzero = _mm256_cmp_ps(dj, _mm256_setzero_ps(), _CMP_NEQ_OQ);
    alignas(32) float v[8];
    _mm256_store_ps(v, _mm256_and_ps(_mm256_div_ps(_mm256_set1_ps(1.0f), dj), nonzero));
    _mm_store_si128(reinterpret_cast<__m128i*>(h), d16);
    std::memcpy(inv + j0, v, n * sizeof(float));
    std::memcpy(side + j0 * sizeof(fp16_bits), h, n * sizeof(fp16_bits));
  }
}


KVSCOPE_AVX2 void write_side_header_avx2(const q4o_tile& t, const fp16_bits* src,
                                         std::size_t src_stride, std::uint8_t* side,
                                         float* inv) noexcept {
  side_header(t, src, src_stride, side, inv, nullptr, 0);
}

// Codes of one outlier channel: q = rne(x * inv) saturated to [-127, 127], which equals the
// scalar clamp then round as |x * inv| stays below 256 (see q8_group). Eight rows a gather: each
// lane reads the 4 bytes ending with the channel's half (starting with it for channel 0), so it
// never reads outside the row. Gathered, where a column copied value by value stalled on each
// vector load of the copy (a store forwarded to a wider load).
KVSCOPE_AVX2 void outlier_codes_avx2(const fp16_bits* src, std::size_t src_stride, std::size_t rows,
                                     std::size_t channel, float inv, std::int8_t* codes) noexcept {
  assert(rows * src_stride < (std::size_t{1} << 30));
  const __m256 scale = _mm256_set1_ps(inv);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i offset = _mm256_mullo_epi32(lane, _mm256_set1_epi32(static_cast<int>(src_stride)));
  const std::size_t back = channel > 0 ? 1 : 0;
  for (std::size_t r = 0; r < rows; r += 8) {
    const __m256i live = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(rows - r)), lane);
    const auto* base = reinterpret_cast<const int*>(src + r * src_stride + channel - back);
    const __m256i words = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), base, offset, live, 2);
    const __m256i half = back != 0 ? _mm256_srli_epi32(words, 16) : _mm256_and_si256(words, _mm256_set1_epi32(0xFFFF));
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(half, half), 0x08);
    const __m256 x = _mm256_cvtph_ps(_mm256_castsi256_si128(packed));
    const __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(x, scale));
    const __m128i words16 = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    const __m128i bytes = _mm_max_epi8(_mm_packs_epi16(words16, words16), _mm_set1_epi8(-127));
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
