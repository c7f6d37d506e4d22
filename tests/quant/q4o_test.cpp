#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "quant/kernels.hpp"
#include "quant/q4o.hpp"
#include "test_tiles.hpp"

namespace kvscope {
namespace {

std::vector<fp16_bits> make_tile(const q4o_tile& t, std::size_t stride, int kind, unsigned seed) {
  return make_test_tile(t.rows, t.head_dim, stride, kind, seed);
}

stored_tile store(const q4o_kernel_set& k, const q4o_tile& t, const std::vector<fp16_bits>& src,
                  std::size_t src_stride, std::size_t out_stride) {
  return store_tile(k, t, src, src_stride, out_stride, t.rows * out_stride / 2, t.rows * out_stride / 16,
                    q4o_side_bytes(t.rows, t.channels));
}

std::vector<float> load(const q4o_kernel_set& k, const q4o_tile& t, const stored_tile& s,
                        std::size_t in_stride, std::size_t dst_stride) {
  return load_tile(k, t, s, in_stride, dst_stride);
}

void expect_matches_scalar(const q4o_kernel_set& simd) {
  unsigned seed = 1;
  for (std::size_t head_dim : {32, 64, 128, 256}) {
    for (std::size_t rows : {1, 3, 8, 16, 17, 40, 70}) {
      for (std::size_t k : {0, 1, 4, 16}) {
        for (int kind = 0; kind <= 6; ++kind) {
          const q4o_tile t{rows, head_dim, k};
          // Contiguous, and inside wider rows (as a block's token-major layout holds a tile).
          for (std::size_t stride : {head_dim, head_dim + 96}) {
            const auto src = make_tile(t, stride, kind, ++seed);
            const stored_tile a = store(scalar_q4o_kernels(), t, src, stride, stride);
            const stored_tile b = store(simd, t, src, stride, stride);
            ASSERT_EQ(a.payload, b.payload) << head_dim << " " << rows << " " << k << " kind " << kind;
            ASSERT_EQ(a.scales, b.scales) << head_dim << " " << rows << " " << k << " kind " << kind;
            ASSERT_EQ(a.side, b.side) << head_dim << " " << rows << " " << k << " kind " << kind;
            for (std::size_t dst_stride : {head_dim, head_dim + 4}) {
              const auto x = load(scalar_q4o_kernels(), t, a, stride, dst_stride);
              const auto y = load(simd, t, a, stride, dst_stride);
              for (std::size_t i = 0; i < x.size(); ++i) {
                ASSERT_EQ(std::bit_cast<std::uint32_t>(x[i]), std::bit_cast<std::uint32_t>(y[i]))
                    << "value " << i << ", " << head_dim << " " << rows << " " << k << " kind " << kind;
              }
            }
          }
        }
      }
    }
  }
}

TEST(Q4o, Avx2MatchesScalarBitForBit) {
  const q4o_kernel_set* avx2 = avx2_q4o_kernels();
  if (avx2 == nullptr) GTEST_SKIP() << "no AVX2+F16C+FMA on this CPU";
  expect_matches_scalar(*avx2);
}

TEST(Q4o, Avx512MatchesScalarBitForBit) {
  const q4o_kernel_set* avx512 = avx512_q4o_kernels();
  if (avx512 == nullptr) GTEST_SKIP() << "no AVX-512 F, BW, DQ, VL and VBMI on this CPU";
  expect_matches_scalar(*avx512);
}

// Without outlier channels q4o stores exactly what q4 stores, row by row.
TEST(Q4o, NoChannelsIsQ4) {
  const q4o_tile t{16, 128, 0};
  const auto src = make_tile(t, 128, 0, 5);
  std::vector<std::uint8_t> payload(16 * 64);
  std::vector<fp16_bits> scales(16 * 8);
  quantize(precision::q4, src.data(), 16 * 4, payload.data(), scales.data());
  for (const q4o_kernel_set* k : {&scalar_q4o_kernels(), avx2_q4o_kernels(), avx512_q4o_kernels()}) {
    if (k == nullptr) continue;
    const stored_tile s = store(*k, t, src, 128, 128);
    EXPECT_TRUE(std::equal(payload.begin(), payload.end(), s.payload.begin())) << k->name;
    EXPECT_TRUE(std::equal(scales.begin(), scales.end(), s.scales.begin())) << k->name;
  }
}

// The channels of largest magnitude are picked and kept at int8 (error <= half a step of their
// scale); every other value keeps q4's bound within its group, whose range no longer spans them.
TEST(Q4o, RoundTripKeepsOutlierChannels) {
  const q4o_tile t{16, 128, 4};
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const std::size_t hot[] = {3, 40, 41, 127};
  std::vector<fp16_bits> src(16 * 128);
  for (std::size_t i = 0; i < src.size(); ++i) {
    const bool outlier = std::find(std::begin(hot), std::end(hot), i % 128) != std::end(hot);
    src[i] = f32_to_fp16(normal(rng) * (outlier ? 10.0f : 1.0f));
  }
  const stored_tile s = store(best_q4o_kernels(), t, src, 128, 128);
  const std::uint8_t* channels = s.side.data() + 8;
  EXPECT_TRUE(std::equal(std::begin(hot), std::end(hot), channels));
  const auto back = load(best_q4o_kernels(), t, s, 128, 128);
  double err = 0, ref = 0;
  for (std::size_t r = 0; r < 16; ++r) {
    for (std::size_t c = 0; c < 128; ++c) {
      const float x = fp16_to_f32(src[r * 128 + c]);
      const float e = std::fabs(back[r * 128 + c] - x);
      const auto j = static_cast<std::size_t>(std::find(std::begin(hot), std::end(hot), c) - std::begin(hot));
      fp16_bits d16;
      if (j < 4) {
        std::memcpy(&d16, s.side.data() + 2 * j, 2);
      } else {
        d16 = s.scales[(r * 128 + c) / 32 * 2];
      }
      ASSERT_LE(e, 0.5f * fp16_to_f32(d16) * 1.001f + 1e-6f) << "row " << r << " channel " << c;
      err += double{e} * e;
      ref += double{x} * x;
    }
  }
  // q4 on the same data is several times higher (the outliers set the groups' steps).
  EXPECT_LT(std::sqrt(err / ref), 0.06);
}

TEST(Q4o, ZerosStayZero) {
  const q4o_tile t{16, 64, 4};
  const std::vector<fp16_bits> zeros(16 * 64, 0);
  for (const q4o_kernel_set* k : {&scalar_q4o_kernels(), avx2_q4o_kernels(), avx512_q4o_kernels()}) {
    if (k == nullptr) continue;
    const stored_tile s = store(*k, t, zeros, 64, 64);
    for (float v : load(*k, t, s, 64, 64)) EXPECT_EQ(v, 0.0f) << k->name;
  }
}

// Ties in magnitude go to the lower channel: with every channel equal, channels 0..k-1; sign
// does not count.
TEST(Q4o, TiesGoToTheLowerChannel) {
  std::vector<std::uint16_t> magnitude(64, 0x3C00);
  std::uint8_t picked[4];
  q4o_detail::pick_channels(magnitude.data(), 64, 4, picked);
  EXPECT_EQ((std::vector<int>(picked, picked + 4)), (std::vector<int>{0, 1, 2, 3}));
  magnitude[50] = magnitude[9] = magnitude[33] = 0x4000;
  q4o_detail::pick_channels(magnitude.data(), 64, 2, picked);
  EXPECT_EQ((std::vector<int>(picked, picked + 2)), (std::vector<int>{9, 33}));
  q4o_detail::pick_channels(magnitude.data(), 64, 4, picked);
  EXPECT_EQ((std::vector<int>(picked, picked + 4)), (std::vector<int>{0, 9, 33, 50}));

  const q4o_tile t{2, 32, 1};
  std::vector<fp16_bits> src(64, f32_to_fp16(0.5f));
  src[7] = f32_to_fp16(-3.0f);
  src[32 + 20] = f32_to_fp16(3.0f);
  const stored_tile s = store(best_q4o_kernels(), t, src, 32, 32);
  EXPECT_EQ(s.side[2], 7);
}

// An outlier's stand-in is the first kept channel of its group of 32.
TEST(Q4o, StandInsAreKeptChannelsOfTheSameGroup) {
  const std::uint8_t channels[] = {0, 1, 33, 95};
  std::uint8_t stand_in[4];
  q4o_detail::stand_ins(channels, 4, stand_in);
  EXPECT_EQ((std::vector<int>(stand_in, stand_in + 4)), (std::vector<int>{2, 2, 32, 64}));
}

TEST(Q4o, BytesAndBitsPerValue) {
  EXPECT_EQ(q4o_side_bytes(16, 4), 4u * 2 + 4 + 16 * 4);
  // llama3-8b's head_dim 128, blocks of 16 tokens, 4 channels: 76 side bytes per key tile over
  // 2 x 16 x 128 values.
  EXPECT_DOUBLE_EQ(q4o_bits_per_value(16, 128, 4), 5.0 + 76.0 * 8 / 4096);
  EXPECT_LE(q4o_bits_per_value(16, 128, 4), 5.2);
  EXPECT_EQ(q4o_bits_per_value(16, 128, 0), 5.0);
}

TEST(Q4o, FormatTags) {
  EXPECT_EQ(tag(q4_format::q4), "q4");
  EXPECT_EQ(tag(q4_format::q4o), "q4o");
  EXPECT_EQ(parse_q4_format("q4o"), q4_format::q4o);
  EXPECT_EQ(parse_q4_format("q4"), q4_format::q4);
  EXPECT_FALSE(parse_q4_format("Q4O").has_value());
}

}  // namespace
}  // namespace kvscope
