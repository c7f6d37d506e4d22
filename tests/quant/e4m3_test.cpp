#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "quant/e4m3.hpp"

namespace kvscope {
namespace {

// The nearest finite e4m3 code by brute force, ties to the even code, saturating at 448.
std::uint8_t reference_e4m3(float x) {
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  const double a = std::fabs(static_cast<double>(x));
  int best = 0;
  double best_distance = a;
  for (int c = 1; c <= 0x7E; ++c) {
    const double d = std::fabs(static_cast<double>(e4m3_to_f32(static_cast<std::uint8_t>(c))) - a);
    if (d < best_distance || (d == best_distance && c % 2 == 0)) {
      best = c;
      best_distance = d;
    }
  }
  return static_cast<std::uint8_t>(sign | best);
}

TEST(E4m3, KnownCodes) {
  EXPECT_EQ(e4m3_to_f32(0x7E), 448.0f);
  EXPECT_EQ(e4m3_to_f32(0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(e4m3_to_f32(0x07), std::ldexp(7.0f, -9));
  EXPECT_EQ(e4m3_to_f32(0x08), std::ldexp(1.0f, -6));
  EXPECT_EQ(e4m3_to_f32(0x38), 1.0f);
  EXPECT_EQ(e4m3_to_f32(0xB8), -1.0f);
  EXPECT_TRUE(std::isnan(e4m3_to_f32(0x7F)));
  EXPECT_TRUE(std::isnan(e4m3_to_f32(0xFF)));
  EXPECT_TRUE(std::signbit(e4m3_to_f32(0x80)));
  EXPECT_EQ(f32_to_e4m3(1000.0f), 0x7E);  // saturates, never NaN
  EXPECT_EQ(f32_to_e4m3(-1e30f), 0xFE);
  EXPECT_EQ(f32_to_e4m3(-0.0f), 0x80);
  EXPECT_EQ(f32_to_e4m3(464.0f), 0x7E);  // halfway to the NaN slot: saturate
}

TEST(E4m3, EveryCodeRoundTrips) {
  for (int c = 0; c < 256; ++c) {
    if ((c & 0x7F) == 0x7F) continue;
    const auto code = static_cast<std::uint8_t>(c);
    EXPECT_EQ(f32_to_e4m3(e4m3_to_f32(code)), code) << c;
  }
}

TEST(E4m3, RoundsToNearestEvenLikeBruteForce) {
  std::vector<float> probes;
  for (int c = 0; c < 0x7E; ++c) {  // midpoints between neighbours, and one ulp either side
    const float lo = e4m3_to_f32(static_cast<std::uint8_t>(c));
    const float mid = (lo + e4m3_to_f32(static_cast<std::uint8_t>(c + 1))) / 2;
    for (float f : {lo, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      probes.push_back(f);
      probes.push_back(-f);
    }
  }
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> exponent(-14.0f, 10.0f);
  for (int i = 0; i < 20000; ++i) {
    probes.push_back(std::exp2(exponent(rng)) * (i % 2 == 0 ? 1.0f : -1.0f));
  }
  for (float x : probes) ASSERT_EQ(f32_to_e4m3(x), reference_e4m3(x)) << std::hexfloat << x;
}

}  // namespace
}  // namespace kvscope
