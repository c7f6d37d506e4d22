// The portable kernels. They define the results; the AVX2 ones must match them bit for bit.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "quant/e4m3.hpp"
#include "quant/kernels.hpp"
#include "quant/tier_layout.hpp"

namespace kvscope {
namespace {

constexpr std::size_t n = group_size;

// Round to nearest, ties to even, for |v| <= 2^22: adding 1.5 * 2^23 leaves no fraction bits.
inline float round_even(float v) {
  constexpr float magic = 12582912.0f;
  return (v + magic) - magic;
}

inline float reciprocal_or_zero(float d) { return d != 0.0f ? 1.0f / d : 0.0f; }

void load_group(const fp16_bits* src, float* x) {
  for (std::size_t i = 0; i < n; ++i) x[i] = fp16_to_f32(src[i]);
}

float abs_max(const float* x) {
  float m = 0.0f;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  return m;
}

void f32_to_fp16_n(const float* src, fp16_bits* dst, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) dst[i] = f32_to_fp16(src[i]);
}

void fp16_to_f32_n(const fp16_bits* src, float* dst, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) dst[i] = fp16_to_f32(src[i]);
}

void quantize_fp16(const fp16_bits* src, std::size_t groups, std::uint8_t* payload, fp16_bits*) {
  std::memcpy(payload, src, groups * n * sizeof(fp16_bits));
}

void dequantize_fp16(const std::uint8_t* payload, const fp16_bits*, std::size_t groups, float* dst) {
  for (std::size_t i = 0; i < groups * n; ++i) {
    fp16_bits h;
    std::memcpy(&h, payload + 2 * i, sizeof h);
    dst[i] = fp16_to_f32(h);
  }
}

void quantize_q8(const fp16_bits* src, std::size_t groups, std::uint8_t* payload,
                 fp16_bits* scales) {
  for (std::size_t g = 0; g < groups; ++g, src += n, payload += n) {
    float x[n];
    load_group(src, x);
    const fp16_bits d16 = f32_to_fp16(abs_max(x) / 127.0f);
    const float inv = reciprocal_or_zero(fp16_to_f32(d16));
    for (std::size_t i = 0; i < n; ++i) {
      const float q = round_even(std::clamp(x[i] * inv, -127.0f, 127.0f));
      payload[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(q));
    }
    scales[g] = d16;
  }
}

void dequantize_q8(const std::uint8_t* payload, const fp16_bits* scales, std::size_t groups,
                   float* dst) {
  for (std::size_t g = 0; g < groups; ++g, payload += n, dst += n) {
    const float d = fp16_to_f32(scales[g]);
    for (std::size_t i = 0; i < n; ++i) {
      dst[i] = static_cast<float>(static_cast<std::int8_t>(payload[i])) * d;
    }
  }
}

void quantize_fp8(const fp16_bits* src, std::size_t groups, std::uint8_t* payload,
                  fp16_bits* scales) {
  for (std::size_t g = 0; g < groups; ++g, src += n, payload += n) {
    float x[n];
    load_group(src, x);
    const fp16_bits d16 = f32_to_fp16(abs_max(x) / e4m3_max);
    const float inv = reciprocal_or_zero(fp16_to_f32(d16));
    for (std::size_t i = 0; i < n; ++i) payload[i] = f32_to_e4m3(x[i] * inv);
    scales[g] = d16;
  }
}

void dequantize_fp8(const std::uint8_t* payload, const fp16_bits* scales, std::size_t groups,
                    float* dst) {
  for (std::size_t g = 0; g < groups; ++g, payload += n, dst += n) {
    const float d = fp16_to_f32(scales[g]);
    for (std::size_t i = 0; i < n; ++i) dst[i] = e4m3_to_f32(payload[i]) * d;
  }
}

// Byte j holds value j in its low nibble and value j + 16 in its high nibble (as ggml).
void quantize_q4(const fp16_bits* src, std::size_t groups, std::uint8_t* payload,
                 fp16_bits* scales) {
  for (std::size_t g = 0; g < groups; ++g, src += n, payload += n / 2) {
    float x[n];
    load_group(src, x);
    const auto [lo, hi] = std::minmax_element(x, x + n);
    // + 0.0f turns -0 into +0: which zero a min or max returns depends on the order of
    // comparisons, and the AVX2 path compares in another order.
    const float m = *lo + 0.0f;  // an fp16 value, so storing it is exact
    const fp16_bits d16 = f32_to_fp16((*hi + 0.0f - m) / 15.0f);
    const float inv = reciprocal_or_zero(fp16_to_f32(d16));
    std::uint8_t q[n];
    for (std::size_t i = 0; i < n; ++i) {
      q[i] = static_cast<std::uint8_t>(round_even(std::clamp((x[i] - m) * inv, 0.0f, 15.0f)));
    }
    for (std::size_t j = 0; j < n / 2; ++j) {
      payload[j] = static_cast<std::uint8_t>(q[j] | (q[j + n / 2] << 4));
    }
    scales[2 * g] = d16;
    scales[2 * g + 1] = f32_to_fp16(m);
  }
}

void dequantize_q4(const std::uint8_t* payload, const fp16_bits* scales, std::size_t groups,
                   float* dst) {
  for (std::size_t g = 0; g < groups; ++g, payload += n / 2, dst += n) {
    const float d = fp16_to_f32(scales[2 * g]);
    const float m = fp16_to_f32(scales[2 * g + 1]);
    for (std::size_t j = 0; j < n / 2; ++j) {
      dst[j] = static_cast<float>(payload[j] & 0xF) * d + m;
      dst[j + n / 2] = static_cast<float>(payload[j] >> 4) * d + m;
    }
  }
}

constexpr kernel_set scalar_set{
    "scalar",
    f32_to_fp16_n,
    fp16_to_f32_n,
    {quantize_fp16, quantize_q8, quantize_fp8, quantize_q4},
    {dequantize_fp16, dequantize_q8, dequantize_fp8, dequantize_q4},
};

}  // namespace

const kernel_set& scalar_kernels() noexcept { return scalar_set; }

}  // namespace kvscope
