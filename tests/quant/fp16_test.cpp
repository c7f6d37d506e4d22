#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "quant/fp16.hpp"
#include "quant/kernels.hpp"

namespace kvscope {
namespace {

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
float from_bits(std::uint32_t u) { return std::bit_cast<float>(u); }

TEST(Fp16, KnownValues) {
  EXPECT_EQ(f32_to_fp16(1.0f), 0x3C00);
  EXPECT_EQ(f32_to_fp16(-2.0f), 0xC000);
  EXPECT_EQ(f32_to_fp16(65504.0f), 0x7BFF);
  EXPECT_EQ(f32_to_fp16(65519.0f), 0x7BFF);
  EXPECT_EQ(f32_to_fp16(65520.0f), 0x7C00);  // the tie rounds to even: infinity
  EXPECT_EQ(f32_to_fp16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(f32_to_fp16(std::ldexp(1.0f, -25)), 0x0000);          // tie to even
  EXPECT_EQ(f32_to_fp16(std::ldexp(3.0f, -25)), 0x0002);          // tie to even
  EXPECT_EQ(f32_to_fp16(std::ldexp(1.0f, -14)), 0x0400);          // smallest normal
  EXPECT_EQ(f32_to_fp16(-0.0f), 0x8000);
  EXPECT_EQ(f32_to_fp16(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(f32_to_fp16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);   // tie, even stays
  EXPECT_EQ(f32_to_fp16(1.0f + std::ldexp(3.0f, -11)), 0x3C02);   // tie, odd rounds up
  EXPECT_EQ(fp16_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fp16_to_f32(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(fp16_to_f32(0x7BFF), 65504.0f);
  EXPECT_TRUE(std::isnan(fp16_to_f32(0x7E00)));
}

TEST(Fp16, EveryHalfRoundTrips) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto half = static_cast<fp16_bits>(h);
    const float f = fp16_to_f32(half);
    if (std::isnan(f)) {
      EXPECT_EQ(f32_to_fp16(f) & 0x7E00, 0x7E00) << h;  // stays a quiet NaN
      continue;
    }
    ASSERT_EQ(f32_to_fp16(f), half) << h;
  }
}

// Floats that stress rounding: every half, the midpoints between neighbours and one ulp either
// side, specials, and a stride through the whole f32 space.
std::vector<float> rounding_probes() {
  std::vector<float> probes;
  for (std::uint32_t h = 0; h < 0x7C00; ++h) {
    for (std::uint32_t sign : {0u, 0x8000u}) {
      const float lo = fp16_to_f32(static_cast<fp16_bits>(h | sign));
      const float hi = fp16_to_f32(static_cast<fp16_bits>((h + 1) | sign));
      const float mid = (lo + hi) / 2;  // exact: both fit in 11 bits
      for (float f : {lo, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f),
                      std::nextafter(mid, -1e30f)}) {
        probes.push_back(f);
      }
    }
  }
  for (std::uint64_t u = 0; u < 0x100000000ull; u += 4099) {
    const float f = from_bits(static_cast<std::uint32_t>(u));
    if (!std::isnan(f)) probes.push_back(f);
  }
  for (std::uint32_t u : {0x7F800000u, 0xFF800000u, 0x7F7FFFFFu, 0x00000001u, 0x80000001u,
                          0x7FC00000u, 0x7FC01234u, 0xFF812345u, 0x7F800001u}) {
    probes.push_back(from_bits(u));
  }
  return probes;
}

TEST(Fp16, ScalarMatchesF16cOnEveryProbe) {
  const kernel_set* avx2 = avx2_kernels();
  if (avx2 == nullptr) GTEST_SKIP() << "no AVX2+F16C on this CPU";
  const std::vector<float> probes = rounding_probes();
  std::vector<fp16_bits> simd(probes.size());
  avx2->f32_to_fp16(probes.data(), simd.data(), probes.size());
  for (std::size_t i = 0; i < probes.size(); ++i) {
    ASSERT_EQ(f32_to_fp16(probes[i]), simd[i]) << std::hexfloat << probes[i] << " bits 0x"
                                               << std::hex << bits(probes[i]);
  }
  std::vector<fp16_bits> halves(0x10000);
  for (std::uint32_t h = 0; h < 0x10000; ++h) halves[h] = static_cast<fp16_bits>(h);
  std::vector<float> widened(halves.size());
  avx2->fp16_to_f32(halves.data(), widened.data(), halves.size());
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    ASSERT_EQ(bits(fp16_to_f32(halves[h])), bits(widened[h])) << std::hex << h;
  }
}

TEST(Fp16, BulkScalarSetMatchesOneByOne) {
  const std::vector<float> in = {0.1f, -3.5f, 70000.0f, 1e-8f, -0.0f, 2.5f, 1.0f / 3, 1e-5f, 7.0f};
  std::vector<fp16_bits> out(in.size());
  scalar_kernels().f32_to_fp16(in.data(), out.data(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(out[i], f32_to_fp16(in[i]));
}

}  // namespace
}  // namespace kvscope
