#pragma once
// The kernel pair of a tile format (q4o, q3): formats that store `rows` head vectors of one
// (layer, kv head) together, because something is shared across the rows (q4o's outlier channels)
// or per row (q3's scale). Each format says what its payload, scales and side record hold.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "quant/fp16.hpp"

namespace kvscope {

template <class Tile>
struct tile_kernel_set {
  // Quantizes a tile: row r's fp16 values at src + r * src_stride; its codes and scales at the
  // format's offsets for row r of rows `out_stride` values apart (so a tile can sit inside a
  // block's token-major layout); the side record at `side`.
  using quantize_fn = void (*)(const Tile& tile, const fp16_bits* src, std::size_t src_stride,
                               std::uint8_t* payload, fp16_bits* scales, std::size_t out_stride,
                               std::uint8_t* side);
  // The inverse: row r to dst + r * dst_stride (floats); strides of the stored tile as above.
  using dequantize_fn = void (*)(const Tile& tile, const std::uint8_t* payload, const fp16_bits* scales,
                                 std::size_t in_stride, const std::uint8_t* side, float* dst,
                                 std::size_t dst_stride);

  std::string_view name;  // "scalar", "avx2" or "avx512"
  quantize_fn quantize;
  dequantize_fn dequantize;
};

}  // namespace kvscope
