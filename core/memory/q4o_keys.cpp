// The paged cache's q4 blocks stored as q4o (quant/q4o.hpp): their keys' tiles, one per layer and
// kv head, each with a side record after the block's q4 scales in the side table. Values, and
// everything of the other levels, are stored as before.
#include <algorithm>
#include <cassert>
#include <cstring>
#include <vector>

#include "memory/paged_cache.hpp"

namespace kvscope {

std::uint8_t* paged_cache::side_record(fp16_bits* scales, std::uint32_t layer,
                                       std::uint32_t head) const noexcept {
  return reinterpret_cast<std::uint8_t*>(scales) + q4o_.side_offset +
         (std::size_t{layer} * shape().kv_heads + head) * q4o_.record_bytes;
}

const std::uint8_t* paged_cache::side_record(const fp16_bits* scales, std::uint32_t layer,
                                             std::uint32_t head) const noexcept {
  return side_record(const_cast<fp16_bits*>(scales), layer, head);
}

void paged_cache::store_q4o_key(const block_data& d, std::uint32_t token, std::uint32_t layer,
                                std::uint32_t written, std::span<const float> k) const {
  const std::size_t hd = q4o_.tile.head_dim;
  const std::size_t channels = q4o_.tile.channels;
  const std::size_t stride = tile_row_stride();
  // Only the rows written so far: the rows after them hold nothing yet, and a pick or a q4 group
  // over them would only see what they are not.
  const q4o_tile tile{std::max<std::size_t>(written, std::size_t{token} + 1), hd, channels};
  // Per thread: store_kv runs on several at once, each on its own blocks.
  thread_local std::vector<fp16_bits> rows;
  thread_local std::vector<float> row;
  thread_local std::vector<std::uint8_t> side;  // the tile's record, `tile.rows` codes a channel
  rows.resize(tile.rows * hd);
  row.resize(hd);
  side.resize(q4o_side_bytes(tile.rows, channels));
  const dequantize_fn q4 = kernels_.dequantize[ordinal(precision::q4)];
  for (std::uint32_t h = 0; h < shape().kv_heads; ++h) {
    const std::size_t base = token_offset(0, layer) + std::size_t{h} * hd;
    std::uint8_t* record = side_record(d.scales, layer, h);
    for (std::size_t r = 0; r < tile.rows; ++r) {
      fp16_bits* out = rows.data() + r * hd;
      if (r == token) {
        kernels_.f32_to_fp16(k.data() + std::size_t{h} * hd, out, hd);
        continue;
      }
      const std::size_t at = base + r * stride;
      q4(d.payload + at / 2, d.scales + at / 16, hd / group_size, row.data());
      restore_q4o_outliers(q4o_.tile, record, r, row.data());
      kernels_.f32_to_fp16(row.data(), out, hd);
    }
    best_q4o_kernels().quantize(tile, rows.data(), hd, d.payload + base / 2, d.scales + base / 16,
                                stride, side.data());
    keep_side_record(side.data(), tile.rows, channels, record);
  }
}

void paged_cache::keep_side_record(const std::uint8_t* side, std::size_t rows, std::size_t channels,
                                   std::uint8_t* record) const noexcept {
  const std::size_t head = channels * (sizeof(fp16_bits) + 1);
  std::memcpy(record, side, head);
  for (std::size_t j = 0; j < channels; ++j) {
    std::uint8_t* codes = record + head + j * block_size();
    std::memcpy(codes, side + head + j * rows, rows);
    std::memset(codes + rows, 0, block_size() - rows);
  }
}

void paged_cache::restore_q4o_keys(const fp16_bits* scales, std::uint32_t token, std::uint32_t layer,
                                   float* k) const noexcept {
  for (std::uint32_t h = 0; h < shape().kv_heads; ++h) {
    restore_q4o_outliers(q4o_.tile, side_record(scales, layer, h), token,
                         k + std::size_t{h} * q4o_.tile.head_dim);
  }
}

void paged_cache::quantize_q4o_keys(const block_data& src, std::uint8_t* payload,
                                    fp16_bits* scales) const {
  // Blocks never grow back and q4 is the most compact level: no q4 block is ever a source.
  assert(src.tier != precision::q4);
  const q4o_tile& tile = q4o_.tile;
  const std::size_t hd = tile.head_dim;
  const std::size_t stride = tile_row_stride();
  std::vector<fp16_bits> rows;  // a quantized source's tile, back to fp16
  std::vector<float> row;
  if (src.tier != precision::fp16) {
    rows.resize(tile.rows * hd);
    row.resize(hd);
  }
  const std::size_t payload_per_group = payload_bytes_per_group(src.tier);
  const std::size_t scales_per_group = scale_halves_per_group(src.tier);
  for (std::uint32_t layer = 0; layer < shape().layers; ++layer) {
    for (std::uint32_t h = 0; h < shape().kv_heads; ++h) {
      const std::size_t base = token_offset(0, layer) + std::size_t{h} * hd;
      const fp16_bits* input = reinterpret_cast<const fp16_bits*>(src.payload) + base;
      std::size_t input_stride = stride;
      if (src.tier != precision::fp16) {
        for (std::size_t r = 0; r < tile.rows; ++r) {
          const std::size_t group = (base + r * stride) / group_size;
          kernels_.dequantize[ordinal(src.tier)](src.payload + group * payload_per_group,
                                                 src.scales + group * scales_per_group, hd / group_size,
                                                 row.data());
          kernels_.f32_to_fp16(row.data(), rows.data() + r * hd, hd);
        }
        input = rows.data();
        input_stride = hd;
      }
      best_q4o_kernels().quantize(tile, input, input_stride, payload + base / 2, scales + base / 16, stride,
                                  side_record(scales, layer, h));
    }
  }
}

}  // namespace kvscope
