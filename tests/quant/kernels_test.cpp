#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <random>
#include <string>
#include <vector>

#include "quant/e4m3.hpp"
#include "quant/kernels.hpp"
#include "quant/tier_layout.hpp"

namespace kvscope {
namespace {

constexpr precision quantized[] = {precision::q8, precision::fp8, precision::q4};

// Groups that stress the kernels: ordinary data at many scales, outliers, zeros of both signs,
// constant groups, fp16 subnormals and the largest halves.
std::vector<fp16_bits> tricky_groups(std::size_t groups, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> kind(0, 9);
  std::uniform_real_distribution<float> log_scale(-20.0f, 15.0f);
  std::vector<fp16_bits> out(groups * group_size);
  for (std::size_t g = 0; g < groups; ++g) {
    fp16_bits* x = out.data() + g * group_size;
    const float scale = std::exp2(log_scale(rng));
    const int k = kind(rng);
    for (std::size_t i = 0; i < group_size; ++i) {
      float v = normal(rng) * scale;
      if (k == 1) v = 0.0f;
      if (k == 2) v = (i % 3 == 0) ? -0.0f : 0.0f;
      if (k == 3) v = 1.5f * scale;  // constant group
      if (k == 4) v = -std::fabs(v);  // all negative
      if (k == 5 && i == 7) v *= 300.0f;  // one outlier
      if (k == 6) v = std::ldexp(static_cast<float>(static_cast<int>(i) - 16), -24);  // subnormals
      if (k == 7) v = (i % 2 == 0) ? 65504.0f : -65504.0f;
      if (k == 8) v = (i == 0) ? -0.0f : std::fabs(v);  // -0 is the minimum
      x[i] = f32_to_fp16(std::clamp(v, -65504.0f, 65504.0f));
    }
  }
  return out;
}

struct quantized_data {
  std::vector<std::uint8_t> payload;
  std::vector<fp16_bits> scales;
};

quantized_data run_quantize(const kernel_set& k, precision p, const std::vector<fp16_bits>& src) {
  const std::size_t groups = src.size() / group_size;
  quantized_data q{std::vector<std::uint8_t>(groups * payload_bytes_per_group(p) + 1, 0xAB),
                   std::vector<fp16_bits>(groups * scale_halves_per_group(p) + 1, 0xABCD)};
  k.quantize[ordinal(p)](src.data(), groups, q.payload.data(), q.scales.data());
  EXPECT_EQ(q.payload.back(), 0xAB) << "wrote past the payload";
  EXPECT_EQ(q.scales.back(), 0xABCD) << "wrote past the scales";
  return q;
}

std::vector<float> run_dequantize(const kernel_set& k, precision p, const quantized_data& q,
                                  std::size_t groups) {
  std::vector<float> out(groups * group_size);
  k.dequantize[ordinal(p)](q.payload.data(), q.scales.data(), groups, out.data());
  return out;
}

TEST(Kernels, BestIsAvx2WhenTheCpuHasIt) {
  if (avx2_kernels() == nullptr) {
    EXPECT_EQ(best_kernels().name, "scalar");
  } else {
    EXPECT_EQ(best_kernels().name, "avx2");
  }
}

// Every group count from 1 to 40 covers whole batches of 8 and every tail length.
TEST(Kernels, Avx2MatchesScalarBitForBit) {
  const kernel_set* avx2 = avx2_kernels();
  if (avx2 == nullptr) GTEST_SKIP() << "no AVX2+F16C+FMA on this CPU";
  for (std::size_t groups : {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 23, 31, 33, 40, 1000}) {
    const auto src = tricky_groups(groups, static_cast<unsigned>(groups));
    for (precision p : group_levels) {
      const quantized_data a = run_quantize(scalar_kernels(), p, src);
      const quantized_data b = run_quantize(*avx2, p, src);
      ASSERT_EQ(a.payload, b.payload) << tag(p) << " payload, " << groups << " groups";
      ASSERT_EQ(a.scales, b.scales) << tag(p) << " scales, " << groups << " groups";
      const auto x = run_dequantize(scalar_kernels(), p, a, groups);
      const auto y = run_dequantize(*avx2, p, a, groups);
      for (std::size_t i = 0; i < x.size(); ++i) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(x[i]), std::bit_cast<std::uint32_t>(y[i]))
            << tag(p) << " value " << i;
      }
    }
  }
}

// The AVX2 dequantizers store differently when the destination is 16 mod 32 bytes (shifted onto
// 32-byte boundaries); every float offset within a cache line must give the scalar bits and
// write nothing outside the destination.
TEST(Kernels, Avx2DequantizesIntoEveryAlignment) {
  const kernel_set* avx2 = avx2_kernels();
  if (avx2 == nullptr) GTEST_SKIP() << "no AVX2+F16C+FMA on this CPU";
  for (std::size_t groups : {1, 2, 3, 8}) {
    const auto src = tricky_groups(groups, static_cast<unsigned>(100 + groups));
    for (precision p : group_levels) {
      const quantized_data q = run_quantize(scalar_kernels(), p, src);
      const auto want = run_dequantize(scalar_kernels(), p, q, groups);
      for (std::size_t offset = 0; offset < 16; ++offset) {
        const std::size_t count = groups * group_size;
        std::vector<float> storage(count + 48, -7.25f);
        // A 64-byte-aligned window of `storage`, so that `offset` fixes the alignment.
        void* start = storage.data();
        std::size_t room = storage.size() * sizeof(float);
        ASSERT_NE(std::align(64, (count + 32) * sizeof(float), start, room), nullptr);
        const std::span<float> buffer(static_cast<float*>(start), count + 32);
        float* dst = buffer.data() + offset;
        avx2->dequantize[ordinal(p)](q.payload.data(), q.scales.data(), groups, dst);
        for (std::size_t i = 0; i < count; ++i) {
          ASSERT_EQ(std::bit_cast<std::uint32_t>(want[i]), std::bit_cast<std::uint32_t>(dst[i]))
              << tag(p) << " value " << i << ", offset " << offset << ", " << groups << " groups";
        }
        for (std::size_t i = 0; i < buffer.size(); ++i) {
          if (i < offset || i >= offset + count) {
            ASSERT_EQ(buffer[i], -7.25f) << tag(p) << " wrote outside, index " << i << ", offset " << offset;
          }
        }
      }
    }
  }
}

TEST(Kernels, Avx2MatchesScalarOnRandomBytes) {
  const kernel_set* avx2 = avx2_kernels();
  if (avx2 == nullptr) GTEST_SKIP() << "no AVX2+F16C+FMA on this CPU";
  std::mt19937 rng(99);
  std::uniform_int_distribution<int> half(0, 0xFFFF);
  std::vector<fp16_bits> src(64 * group_size);
  for (auto& h : src) {
    do {
      h = static_cast<fp16_bits>(half(rng));
    } while ((h & 0x7C00) == 0x7C00);  // finite inputs only (the kernels' precondition)
  }
  for (precision p : group_levels) {
    const quantized_data a = run_quantize(scalar_kernels(), p, src);
    const quantized_data b = run_quantize(*avx2, p, src);
    EXPECT_EQ(a.payload, b.payload) << tag(p);
    EXPECT_EQ(a.scales, b.scales) << tag(p);
  }
}

TEST(Kernels, Fp16TierCopiesAndWidens) {
  const auto src = tricky_groups(9, 5);
  for (const kernel_set* k : {&scalar_kernels(), avx2_kernels()}) {
    if (k == nullptr) continue;
    const quantized_data q = run_quantize(*k, precision::fp16, src);
    const auto back = run_dequantize(*k, precision::fp16, q, 9);
    for (std::size_t i = 0; i < src.size(); ++i) ASSERT_EQ(back[i], fp16_to_f32(src[i]));
  }
}

// Per-value bounds from the formats: half a step of the group's scale for q8 and q4 (d is
// rounded to fp16, so allow its relative error), e4m3's half ulp for fp8.
TEST(Kernels, RoundTripErrorBounds) {
  std::mt19937 rng(17);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<fp16_bits> src(512 * group_size);
  for (std::size_t i = 0; i < src.size(); ++i) {
    const float outlier = (i % group_size == 5) ? 10.0f : 1.0f;
    src[i] = f32_to_fp16(normal(rng) * outlier);
  }
  const std::size_t groups = src.size() / group_size;
  for (precision p : quantized) {
    const quantized_data q = run_quantize(best_kernels(), p, src);
    const auto back = run_dequantize(best_kernels(), p, q, groups);
    double err = 0, ref = 0;
    for (std::size_t g = 0; g < groups; ++g) {
      const float d = fp16_to_f32(q.scales[g * scale_halves_per_group(p)]);
      for (std::size_t i = 0; i < group_size; ++i) {
        const float x = fp16_to_f32(src[g * group_size + i]);
        const float y = back[g * group_size + i];
        const float e = std::fabs(y - x);
        err += double{e} * e;
        ref += double{x} * x;
        if (p == precision::fp8) {
          const float scaled = std::fabs(x) / d;
          const float bound = scaled >= 0.015625f ? scaled * 0.0625f : 0.0009765625f;
          ASSERT_LE(e / d, bound * 1.001f + 1e-6f) << "group " << g << " value " << i;
        } else {
          ASSERT_LE(e, 0.5f * d * 1.001f + 1e-6f) << tag(p) << " group " << g << " value " << i;
        }
      }
    }
    const double rel_rmse = std::sqrt(err / ref);
    // Every group here has a 10x outlier, which sets its scale: errors well above plain data.
    const double limit = p == precision::q8 ? 0.02 : p == precision::fp8 ? 0.04 : 0.2;
    EXPECT_LT(rel_rmse, limit) << tag(p);
    EXPECT_GT(rel_rmse, 0.0) << tag(p);
  }
}

TEST(Kernels, ZeroGroupsStayZero) {
  const std::vector<fp16_bits> zeros(3 * group_size, 0);
  for (precision p : group_levels) {
    const quantized_data q = run_quantize(best_kernels(), p, zeros);
    for (float v : run_dequantize(best_kernels(), p, q, 3)) EXPECT_EQ(v, 0.0f) << tag(p);
  }
}

}  // namespace
}  // namespace kvscope
