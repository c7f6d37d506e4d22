// AVX2 + F16C + FMA kernels, matching kernels_scalar.cpp bit for bit. Every function carries a
// target attribute instead of building the file with -mavx2, so no AVX2 code can leak into inline
// functions shared with the rest of the program; avx2_kernels() checks the CPU before use.
//
// Quantizers work on 8 groups at a time: one transpose-reduce gives the 8 group maxima in one
// register, so the scale arithmetic (divide, round to fp16, reciprocal) runs once per 8 groups
// instead of as a serial scalar chain per group. A tail of fewer than 8 groups goes through a
// zero-padded copy, so there is a single code path.
#include "quant/kernels.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "quant/tier_layout.hpp"

#define KVSCOPE_AVX2 __attribute__((target("avx2,f16c,fma")))
#define KVSCOPE_AVX2_INLINE __attribute__((target("avx2,f16c,fma"), always_inline)) inline

namespace kvscope {
namespace {

constexpr std::size_t n = group_size;
constexpr std::size_t batch = 8;  // groups per scale computation

KVSCOPE_AVX2_INLINE __m256 load8(const fp16_bits* src) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
}

// Reductions run on raw fp16 bits in 16-bit lanes (16 values an instruction) and widen only the
// 8 results: for finite halves, magnitude order is the integer order of the low 15 bits, and
// signed order is int16 order once the magnitude bits of negatives are flipped (ordered()).
struct max_u16 {
  KVSCOPE_AVX2_INLINE static __m256i op(__m256i a, __m256i b) { return _mm256_max_epu16(a, b); }
  KVSCOPE_AVX2_INLINE static __m128i op(__m128i a, __m128i b) { return _mm_max_epu16(a, b); }
};
struct max_i16 {
  KVSCOPE_AVX2_INLINE static __m256i op(__m256i a, __m256i b) { return _mm256_max_epi16(a, b); }
  KVSCOPE_AVX2_INLINE static __m128i op(__m128i a, __m128i b) { return _mm_max_epi16(a, b); }
};
struct min_i16 {
  KVSCOPE_AVX2_INLINE static __m256i op(__m256i a, __m256i b) { return _mm256_min_epi16(a, b); }
  KVSCOPE_AVX2_INLINE static __m128i op(__m128i a, __m128i b) { return _mm_min_epi16(a, b); }
};

// Lane g of the result: Op over the 16 lanes of m[g]. Within each 128-bit lane, transpose and
// reduce, halving the width at each level; then fold the two lanes.
template <class Op>
KVSCOPE_AVX2_INLINE __m128i reduce8(const __m256i* m) {
  __m256i t[4];
  for (int i = 0; i < 4; ++i) {
    t[i] = Op::op(_mm256_unpacklo_epi16(m[2 * i], m[2 * i + 1]),
                  _mm256_unpackhi_epi16(m[2 * i], m[2 * i + 1]));
  }
  const __m256i u0 = Op::op(_mm256_unpacklo_epi32(t[0], t[1]), _mm256_unpackhi_epi32(t[0], t[1]));
  const __m256i u1 = Op::op(_mm256_unpacklo_epi32(t[2], t[3]), _mm256_unpackhi_epi32(t[2], t[3]));
  const __m256i w = Op::op(_mm256_unpacklo_epi64(u0, u1), _mm256_unpackhi_epi64(u0, u1));
  return Op::op(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

KVSCOPE_AVX2_INLINE __m256i load16(const fp16_bits* src) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
}

// Involution mapping finite halves to int16 in signed order (-0 just below +0).
KVSCOPE_AVX2_INLINE __m256i ordered(__m256i h) {
  return _mm256_xor_si256(h, _mm256_and_si256(_mm256_srai_epi16(h, 15), _mm256_set1_epi16(0x7FFF)));
}
KVSCOPE_AVX2_INLINE __m128i ordered(__m128i h) {
  return _mm_xor_si128(h, _mm_and_si128(_mm_srai_epi16(h, 15), _mm_set1_epi16(0x7FFF)));
}

// Lane g: largest |x| of group g of the 8 groups at src.
KVSCOPE_AVX2_INLINE __m256 abs_max8(const fp16_bits* src) {
  const __m256i magnitude = _mm256_set1_epi16(0x7FFF);
  __m256i m[batch];
  for (std::size_t g = 0; g < batch; ++g) {
    m[g] = _mm256_max_epu16(_mm256_and_si256(load16(src + g * n), magnitude),
                            _mm256_and_si256(load16(src + g * n + 16), magnitude));
  }
  return _mm256_cvtph_ps(reduce8<max_u16>(m));
}

// d = fp16(numerator / divisor) for 8 groups, returned as halves; inv[g] = 1/d (0 when d = 0).
KVSCOPE_AVX2_INLINE __m128i scales8(__m256 numerator, float divisor, float* inv) {
  const __m128i d16 = _mm256_cvtps_ph(_mm256_div_ps(numerator, _mm256_set1_ps(divisor)), 0);
  const __m256 d = _mm256_cvtph_ps(d16);
  const __m256 nonzero = _mm256_cmp_ps(d, _mm256_setzero_ps(), _CMP_NEQ_OQ);
  _mm256_storeu_ps(inv, _mm256_and_ps(_mm256_div_ps(_mm256_set1_ps(1.0f), d), nonzero));
  return d16;
}

// 32 int32 lanes in four vectors -> 32 bytes in order, saturating to int8 / uint8.
KVSCOPE_AVX2_INLINE __m256i pack32_i8(__m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256i bytes = _mm256_packs_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
  return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

KVSCOPE_AVX2_INLINE __m256i pack32_u8(__m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256i bytes = _mm256_packus_epi16(_mm256_packus_epi32(a, b), _mm256_packus_epi32(c, d));
  return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

// Round to nearest even as an int32 (the default MXCSR mode, as the scalar path assumes).
KVSCOPE_AVX2_INLINE __m256i round_i32(__m256 v) { return _mm256_cvtps_epi32(v); }

// One q8 group: |x * inv| <= ~191 (d is at worst 1.5x below amax / 127 when it is an fp16
// subnormal), so rounding then saturating to [-127, 127] equals the scalar clamp then round.
KVSCOPE_AVX2_INLINE void q8_group(const fp16_bits* src, __m256 inv, std::uint8_t* out) {
  const __m256i bytes = pack32_i8(
      round_i32(_mm256_mul_ps(load8(src), inv)), round_i32(_mm256_mul_ps(load8(src + 8), inv)),
      round_i32(_mm256_mul_ps(load8(src + 16), inv)), round_i32(_mm256_mul_ps(load8(src + 24), inv)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                      _mm256_max_epi8(bytes, _mm256_set1_epi8(-127)));
}

KVSCOPE_AVX2 void q8_batch(const fp16_bits* src, std::uint8_t* payload, fp16_bits* scales) {
  alignas(32) float inv[batch];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(scales), scales8(abs_max8(src), 127.0f, inv));
  for (std::size_t g = 0; g < batch; ++g) {
    q8_group(src + g * n, _mm256_broadcast_ss(&inv[g]), payload + g * n);
  }
}

// |y| -> e4m3 magnitude codes in int32 lanes, rounding as f32_to_e4m3 (quant/e4m3.hpp). Adding
// c = 1.5 x 2^(e + 20), e = max(exponent of |y|, -6), leaves |y| rounded to its e4m3 step
// 2^(e - 3), ties to even (2^-9 below 2^-6, the subnormal step); the code is then the steps above
// c plus 8 per binade above 2^-6. |y| <= 672 here, so codes stay below 256; saturation to 0x7E
// happens on the packed bytes.
KVSCOPE_AVX2_INLINE __m256i e4m3_magnitudes(__m256 y) {
  const __m256i a = _mm256_and_si256(_mm256_castps_si256(y), _mm256_set1_epi32(0x7FFFFFFF));
  const __m256i e = _mm256_max_epi32(_mm256_and_si256(a, _mm256_set1_epi32(0x7F800000)),
                                     _mm256_set1_epi32(121 << 23));
  const __m256i c = _mm256_add_epi32(e, _mm256_set1_epi32((20 << 23) + 0x400000));
  const __m256i s = _mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(c)));
  return _mm256_add_epi32(_mm256_sub_epi32(s, c),
                          _mm256_sub_epi32(_mm256_srli_epi32(e, 20), _mm256_set1_epi32(121 << 3)));
}

// sign(y) = sign(x) as inv >= 0: the sign bytes come straight from the halves.
KVSCOPE_AVX2_INLINE void fp8_group(const fp16_bits* src, __m256 inv, std::uint8_t* out) {
  const __m256i codes = pack32_u8(
      e4m3_magnitudes(_mm256_mul_ps(load8(src), inv)), e4m3_magnitudes(_mm256_mul_ps(load8(src + 8), inv)),
      e4m3_magnitudes(_mm256_mul_ps(load8(src + 16), inv)),
      e4m3_magnitudes(_mm256_mul_ps(load8(src + 24), inv)));
  const auto* halves = reinterpret_cast<const __m256i*>(src);
  const __m256i signs = _mm256_and_si256(
      _mm256_permute4x64_epi64(_mm256_packs_epi16(_mm256_loadu_si256(halves), _mm256_loadu_si256(halves + 1)), 0xD8),
      _mm256_set1_epi8(static_cast<char>(0x80)));
  const __m256i saturated = _mm256_min_epu8(codes, _mm256_set1_epi8(0x7E));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_or_si256(saturated, signs));
}

KVSCOPE_AVX2 void fp8_batch(const fp16_bits* src, std::uint8_t* payload, fp16_bits* scales) {
  alignas(32) float inv[batch];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(scales), scales8(abs_max8(src), 448.0f, inv));
  for (std::size_t g = 0; g < batch; ++g) {
    fp8_group(src + g * n, _mm256_broadcast_ss(&inv[g]), payload + g * n);
  }
}

// One q4 group: byte j = q[j] | q[j + 16] << 4. (x - m) * inv is in [0, ~23], so rounding then
// capping the packed bytes at 15 equals the scalar clamp then round.
KVSCOPE_AVX2_INLINE void q4_group(const fp16_bits* src, __m256 m, __m256 inv, std::uint8_t* out) {
  __m256i q[4];
  for (int i = 0; i < 4; ++i) q[i] = round_i32(_mm256_mul_ps(_mm256_sub_ps(load8(src + 8 * i), m), inv));
  const __m256i bytes = _mm256_min_epu8(pack32_u8(q[0], q[1], q[2], q[3]), _mm256_set1_epi8(15));
  const __m128i low = _mm256_castsi256_si128(bytes);
  const __m128i high = _mm256_extracti128_si256(bytes, 1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_or_si128(low, _mm_slli_epi16(high, 4)));
}

KVSCOPE_AVX2 void q4_batch(const fp16_bits* src, std::uint8_t* payload, fp16_bits* scales) {
  __m256i lo[batch], hi[batch];
  for (std::size_t g = 0; g < batch; ++g) {
    const __m256i a = ordered(load16(src + g * n));
    const __m256i b = ordered(load16(src + g * n + 16));
    lo[g] = _mm256_min_epi16(a, b);
    hi[g] = _mm256_max_epi16(a, b);
  }
  const __m256 zero = _mm256_setzero_ps();
  // + 0 turns -0 into +0, as the scalar path does.
  const __m256 m = _mm256_add_ps(_mm256_cvtph_ps(ordered(reduce8<min_i16>(lo))), zero);
  const __m256 top = _mm256_add_ps(_mm256_cvtph_ps(ordered(reduce8<max_i16>(hi))), zero);
  alignas(32) float inv[batch];
  alignas(32) float mins[batch];
  const __m128i d16 = scales8(_mm256_sub_ps(top, m), 15.0f, inv);
  const __m128i m16 = _mm256_cvtps_ph(m, 0);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(scales), _mm_unpacklo_epi16(d16, m16));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(scales + 8), _mm_unpackhi_epi16(d16, m16));
  _mm256_store_ps(mins, m);
  for (std::size_t g = 0; g < batch; ++g) {
    q4_group(src + g * n, _mm256_broadcast_ss(&mins[g]), _mm256_broadcast_ss(&inv[g]),
             payload + g * n / 2);
  }
}

using batch_fn = void (*)(const fp16_bits*, std::uint8_t*, fp16_bits*);

// Input is requested this far ahead (2 KiB): on 256 MiB, q4 went from ~0.25 to ~0.19 ns a value
// (16, 32 or 64 groups ahead all did the same); the hardware prefetcher alone left it waiting.
#ifndef KVSCOPE_PREFETCH_GROUPS
#define KVSCOPE_PREFETCH_GROUPS 32
#endif
constexpr std::size_t prefetch_groups = KVSCOPE_PREFETCH_GROUPS;

// Whole batches in place; the last < 8 groups through a zero-padded copy.
template <batch_fn run, precision p>
KVSCOPE_AVX2 void quantize_batched(const fp16_bits* src, std::size_t groups, std::uint8_t* payload,
                      fp16_bits* scales) {
  constexpr std::size_t pg = payload_bytes_per_group(p);
  constexpr std::size_t sg = scale_halves_per_group(p);
  std::size_t g = 0;
  for (; g + batch <= groups; g += batch) {
    if (g + prefetch_groups < groups) {
      const auto* ahead = reinterpret_cast<const char*>(src + (g + prefetch_groups) * n);
      for (std::size_t line = 0; line < batch * n * sizeof(fp16_bits); line += 64) {
        _mm_prefetch(ahead + line, _MM_HINT_T0);
      }
    }
    run(src + g * n, payload + g * pg, scales + g * sg);
  }
  if (g == groups) return;
  const std::size_t rest = groups - g;
  fp16_bits in[batch * n] = {};
  std::uint8_t out[batch * pg];
  fp16_bits out_scales[batch * sg];
  std::memcpy(in, src + g * n, rest * n * sizeof(fp16_bits));
  run(in, out, out_scales);
  std::memcpy(payload + g * pg, out, rest * pg);
  std::memcpy(scales + g * sg, out_scales, rest * sg * sizeof(fp16_bits));
}

KVSCOPE_AVX2 void f32_to_fp16_n(const float* src, fp16_bits* dst, std::size_t count) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm256_cvtps_ph(_mm256_loadu_ps(src + i), 0));
  }
  for (; i < count; ++i) {
    dst[i] = static_cast<fp16_bits>(_mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(src[i]), 0), 0));
  }
}

KVSCOPE_AVX2 void fp16_to_f32_n(const fp16_bits* src, float* dst, std::size_t count) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) _mm256_storeu_ps(dst + i, load8(src + i));
  for (; i < count; ++i) dst[i] = _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(src[i])));
}

void quantize_fp16(const fp16_bits* src, std::size_t groups, std::uint8_t* payload, fp16_bits*) {
  std::memcpy(payload, src, groups * n * sizeof(fp16_bits));
}

// Dequantizers read their payload dequantize_prefetch_bytes ahead (each group functor's prefetch,
// `ahead` groups on), past the end of the call too: callers stream blocks in order, call after
// call, and a prefetch never faults. On 128 MiB in chunks of 128 groups this took q8 from about
// 0.19 to 0.10 ns a value and fp8 from 0.22 to 0.12 (prefetching only within a call: 0.16, 0.21).
constexpr std::size_t dequantize_prefetch_bytes = 2048;

// Requests the line `bytes` past `base`. The address is formed as an integer: it may lie past the
// end of the caller's buffer, where pointer arithmetic would be undefined.
KVSCOPE_AVX2_INLINE void prefetch_at(const void* base, std::size_t bytes) {
  _mm_prefetch(reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(base) + bytes), _MM_HINT_T0);
}

// Dequantizers produce each group as four vectors of 8 floats (group_vectors below) and leave
// the stores to write_groups. A 32-byte store that straddles a cache line costs about twice an
// aligned one, and a caller's buffer is often 16- but not 32-byte aligned (malloc's guarantee):
// reading one slot into such a buffer took twice as long. So when dst is 16 mod 32, each vector
// is stored as two aligned 16-byte halves, which never straddle a line. (Shifting vectors onto
// 32-byte boundaries instead took a lane permute per store, on the shuffle port the unpacking
// already keeps busy: q4 ran 1.5x slower into such a buffer.) The floats written are the same.
template <class Groups>
KVSCOPE_AVX2_INLINE void write_groups(const Groups& groups_of, std::size_t groups, float* dst) {
  __m256 v[4];
  if ((reinterpret_cast<std::uintptr_t>(dst) & 31u) != 16u) {
    for (std::size_t g = 0; g < groups; ++g, dst += n) {
      groups_of.prefetch(g + Groups::ahead);
      groups_of(g, v);
      for (int i = 0; i < 4; ++i) _mm256_storeu_ps(dst + 8 * i, v[i]);
    }
    return;
  }
  for (std::size_t g = 0; g < groups; ++g, dst += n) {
    groups_of.prefetch(g + Groups::ahead);
    groups_of(g, v);
    for (int i = 0; i < 4; ++i) {
      _mm_store_ps(dst + 8 * i, _mm256_castps256_ps128(v[i]));
      _mm_store_ps(dst + 8 * i + 4, _mm256_extractf128_ps(v[i], 1));
    }
  }
}

struct fp16_groups {
  const fp16_bits* src;
  static constexpr std::size_t ahead = dequantize_prefetch_bytes / 64;
  KVSCOPE_AVX2_INLINE void prefetch(std::size_t g) const {
    prefetch_at(src, g * 64);
  }
  KVSCOPE_AVX2_INLINE void operator()(std::size_t g, __m256* v) const {
    const fp16_bits* x = src + g * n;
    for (int i = 0; i < 4; ++i) v[i] = load8(x + 8 * i);
  }
};

KVSCOPE_AVX2 void dequantize_fp16(const std::uint8_t* payload, const fp16_bits*, std::size_t groups,
                                  float* dst) {
  write_groups(fp16_groups{reinterpret_cast<const fp16_bits*>(payload)}, groups, dst);
}

KVSCOPE_AVX2_INLINE float from_half(fp16_bits h) {
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h)));
}

struct q8_groups {
  const std::uint8_t* payload;
  const fp16_bits* scales;
  static constexpr std::size_t ahead = dequantize_prefetch_bytes / n;
  KVSCOPE_AVX2_INLINE void prefetch(std::size_t g) const {
    prefetch_at(payload, g * n);
  }
  KVSCOPE_AVX2_INLINE void operator()(std::size_t g, __m256* v) const {
    const __m256 d = _mm256_set1_ps(from_half(scales[g]));
    const std::uint8_t* q = payload + g * n;
    for (int i = 0; i < 4; ++i) {
      const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + 8 * i));
      v[i] = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes)), d);
    }
  }
};

KVSCOPE_AVX2 void dequantize_q8(const std::uint8_t* payload, const fp16_bits* scales,
                                std::size_t groups, float* dst) {
  write_groups(q8_groups{payload, scales}, groups, dst);
}

// e4m3 -> f32 through fp16: the code's bits moved into half position give e4m3 / 256 exactly
// (subnormals included), which F16C widens; the scale absorbs the 256. A code c in the high byte
// of a 16-bit lane (unpacked over zero) is s.eeee.mmm.00000000; an arithmetic shift right by one
// gives s.s.eeee.mmm.0000000, and clearing bit 14 leaves the half s.0eeee.mmm0000000. Unpacking
// within 128-bit lanes puts codes 0-7 and 16-23 in `low`, 8-15 and 24-31 in `high`.
struct fp8_groups {
  const std::uint8_t* payload;
  const fp16_bits* scales;
  static constexpr std::size_t ahead = dequantize_prefetch_bytes / n;
  KVSCOPE_AVX2_INLINE void prefetch(std::size_t g) const {
    prefetch_at(payload, g * n);
  }
  KVSCOPE_AVX2_INLINE void operator()(std::size_t g, __m256* v) const {
    const __m256i clear = _mm256_set1_epi16(static_cast<short>(0xBFFF));
    const __m256 d = _mm256_set1_ps(from_half(scales[g]) * 256.0f);
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(payload + g * n));
    const __m256i low = _mm256_and_si256(_mm256_srai_epi16(_mm256_unpacklo_epi8(_mm256_setzero_si256(), c), 1), clear);
    const __m256i high = _mm256_and_si256(_mm256_srai_epi16(_mm256_unpackhi_epi8(_mm256_setzero_si256(), c), 1), clear);
    v[0] = _mm256_mul_ps(_mm256_cvtph_ps(_mm256_castsi256_si128(low)), d);
    v[1] = _mm256_mul_ps(_mm256_cvtph_ps(_mm256_castsi256_si128(high)), d);
    v[2] = _mm256_mul_ps(_mm256_cvtph_ps(_mm256_extracti128_si256(low, 1)), d);
    v[3] = _mm256_mul_ps(_mm256_cvtph_ps(_mm256_extracti128_si256(high, 1)), d);
  }
};

KVSCOPE_AVX2 void dequantize_fp8(const std::uint8_t* payload, const fp16_bits* scales,
                                 std::size_t groups, float* dst) {
  write_groups(fp8_groups{payload, scales}, groups, dst);
}

// The 8 low bytes of `eight` as unsigned integers, times d plus m. One fused multiply-add: a code
// (at most 8 bits) times an fp16 scale (11) is exact in a float, so rounding once is rounding
// the sum, as the scalar q * d + m does.
KVSCOPE_AVX2_INLINE __m256 affine8(__m128i eight, __m256 d, __m256 m) {
  const __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(eight));
  return _mm256_fmadd_ps(v, d, m);
}

// Values 0..15 of a group are the low nibbles of its 16 bytes, 16..31 the high ones.
struct q4_groups {
  const std::uint8_t* payload;
  const fp16_bits* scales;
  static constexpr std::size_t ahead = dequantize_prefetch_bytes / (n / 2);
  KVSCOPE_AVX2_INLINE void prefetch(std::size_t g) const {
    prefetch_at(payload, g * (n / 2));
  }
  KVSCOPE_AVX2_INLINE void operator()(std::size_t g, __m256* v) const {
    const __m128i mask = _mm_set1_epi8(0x0F);
    const __m256 d = _mm256_set1_ps(from_half(scales[2 * g]));
    const __m256 m = _mm256_set1_ps(from_half(scales[2 * g + 1]));
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(payload + g * (n / 2)));
    const __m128i low = _mm_and_si128(bytes, mask);
    const __m128i high = _mm_and_si128(_mm_srli_epi16(bytes, 4), mask);
    v[0] = affine8(low, d, m);
    v[1] = affine8(_mm_unpackhi_epi64(low, low), d, m);
    v[2] = affine8(high, d, m);
    v[3] = affine8(_mm_unpackhi_epi64(high, high), d, m);
  }
};

KVSCOPE_AVX2 void dequantize_q4(const std::uint8_t* payload, const fp16_bits* scales,
                                std::size_t groups, float* dst) {
  write_groups(q4_groups{payload, scales}, groups, dst);
}

constexpr kernel_set avx2_set{
    "avx2",
    f32_to_fp16_n,
    fp16_to_f32_n,
    {quantize_fp16, quantize_batched<q8_batch, precision::q8>,
     quantize_batched<fp8_batch, precision::fp8>, quantize_batched<q4_batch, precision::q4>},
    {dequantize_fp16, dequantize_q8, dequantize_fp8, dequantize_q4},
};

// CPUID for AVX, F16C, FMA and AVX2, and XGETBV for the OS saving YMM state (clang 14's
// __builtin_cpu_supports does not know "f16c").
bool cpu_has_avx2_f16c_fma() noexcept {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return false;
  const unsigned needed = (1u << 12) | (1u << 27) | (1u << 28) | (1u << 29);  // FMA OSXSAVE AVX F16C
  if ((c & needed) != needed) return false;
  unsigned xcr0 = 0, xcr0_high = 0;
  __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
  if ((xcr0 & 6u) != 6u) return false;  // XMM and YMM state enabled
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid_count(7, 0, a, b, c, d);
  return (b & (1u << 5)) != 0;  // AVX2
}

}  // namespace

const kernel_set* avx2_kernels() noexcept {
  static const bool supported = cpu_has_avx2_f16c_fma();
  return supported ? &avx2_set : nullptr;
}

}  // namespace kvscope

#else

namespace kvscope {
const kernel_set* avx2_kernels() noexcept { return nullptr; }
}  // namespace kvscope

#endif
