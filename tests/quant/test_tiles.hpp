#pragma once
// Test tiles for the tile formats (q4o, q3): fp16 head vectors with the data shapes that break
// quantizers.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "quant/fp16.hpp"
#include "quant/tile_kernels.hpp"

namespace kvscope {

// A tile of `rows` x head_dim values in rows `stride` apart (gaps hold a sentinel). Kinds:
// 0 normal data with a few x10..x300 outlier channels, 1 zeros of both signs, 2 every channel
// equal, 3 fp16 subnormals, 4 the largest halves, 5 random finite bit patterns, 6 normal data at
// a random scale with no outliers.
inline std::vector<fp16_bits> make_test_tile(std::size_t rows, std::size_t head_dim, std::size_t stride,
                                             int kind, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> bits(0, 0xFFFF);
  std::uniform_real_distribution<float> log_scale(-20.0f, 12.0f);
  const float scale = std::exp2(log_scale(rng));
  std::vector<std::size_t> hot;
  for (int i = 0; i < 6; ++i) hot.push_back(static_cast<std::size_t>(bits(rng)) % head_dim);
  std::vector<fp16_bits> out(rows * stride, 0x7BFF);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < head_dim; ++c) {
      float v = normal(rng);
      const bool is_hot = std::find(hot.begin(), hot.end(), c) != hot.end();
      if (kind == 0 && is_hot) v *= 10.0f + 50.0f * static_cast<float>(c % 6);
      if (kind == 1) v = (c + r) % 3 == 0 ? -0.0f : 0.0f;
      if (kind == 2) v = 1.25f;
      if (kind == 3) v = std::ldexp(static_cast<float>(static_cast<int>(c % 40) - 20), -24);
      if (kind == 4) v = (c + r) % 2 == 0 ? 65504.0f : -65504.0f;
      if (kind == 6) v *= scale;
      fp16_bits h = f32_to_fp16(std::clamp(v, -65504.0f, 65504.0f));
      if (kind == 5) {
        do h = static_cast<fp16_bits>(bits(rng)); while ((h & 0x7C00) == 0x7C00);
      }
      out[r * stride + c] = h;
    }
  }
  return out;
}

struct stored_tile {
  std::vector<std::uint8_t> payload;
  std::vector<fp16_bits> scales;
  std::vector<std::uint8_t> side;
};

// Stores a tile into outputs of the given sizes plus a sentinel each, and checks the sentinels
// survive.
template <class Tile>
stored_tile store_tile(const tile_kernel_set<Tile>& k, const Tile& t, const std::vector<fp16_bits>& src,
                       std::size_t src_stride, std::size_t out_stride, std::size_t payload_bytes,
                       std::size_t scale_halves, std::size_t side_bytes) {
  stored_tile s{std::vector<std::uint8_t>(payload_bytes + 1, 0xAB),
                std::vector<fp16_bits>(scale_halves + 1, 0xABCD),
                std::vector<std::uint8_t>(side_bytes + 1, 0xAB)};
  k.quantize(t, src.data(), src_stride, s.payload.data(), s.scales.data(), out_stride, s.side.data());
  EXPECT_EQ(s.payload.back(), 0xAB) << "wrote past the payload";
  EXPECT_EQ(s.scales.back(), 0xABCD) << "wrote past the scales";
  EXPECT_EQ(s.side.back(), 0xAB) << "wrote past the side record";
  return s;
}

// Reads a stored tile back into rows `dst_stride` floats apart (the gaps hold a sentinel).
template <class Tile>
std::vector<float> load_tile(const tile_kernel_set<Tile>& k, const Tile& t, const stored_tile& s,
                             std::size_t in_stride, std::size_t dst_stride) {
  std::vector<float> out(t.rows * dst_stride, -7.25f);
  k.dequantize(t, s.payload.data(), s.scales.data(), in_stride, s.side.data(), out.data(), dst_stride);
  return out;
}

}  // namespace kvscope
