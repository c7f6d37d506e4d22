// The paged cache's q3 blocks (quant/q3.hpp). Every head vector of K and V is a row of 3-bit
// codes with its own fp16 scale, in the block's token-major order; each layer and kv head of the
// keys is a tile whose outlier channels sit in a side record after the block's scales. A row is
// rotated and scaled alone, so a value row is written once; a key tile's channel pick spans its
// rows, so writing a key quantizes its tile again, as q4o's (memory/q4o_keys.cpp).
#include <algorithm>
#include <vector>

#include "memory/paged_cache.hpp"

namespace kvscope {
namespace {

// A key tile of a q3 block: its first row's offset in values, rows `stride` values apart, and
// its side record as the block keeps it.
struct key_tile_place {
  const block_data& block;
  std::size_t base;
  std::size_t stride;
  std::uint8_t* record;
};

// Row `token` of a key tile from `key` (fp16), the tile's other rows from what they hold: the
// tile is quantized again (its outlier channels span the rows) and its new record left in `side`.
// Rows written before keep their codes and scales while the tile's outlier channels and their
// scales stay the same: quantizing a rotated row again from its own dequantized values does not
// give it back (its scale shrinks each time), so a block written token by token would otherwise
// lose a little more of its first rows at every token.
void store_key_row(const q3_tile& tile, const key_tile_place& at, std::uint32_t token, bool had_rows,
                   const fp16_bits* key, std::size_t block_rows, const kernel_set& kernels,
                   std::vector<std::uint8_t>& side) {
  const std::size_t hd = tile.head_dim, row_bytes = q3_payload_bytes(hd);
  const q3_kernel_set& q3 = best_q3_kernels();
  thread_local std::vector<fp16_bits> rows, kept_scales;
  thread_local std::vector<float> row;
  thread_local std::vector<std::uint8_t> kept_codes;
  rows.resize(tile.rows * hd);
  row.resize(hd);
  kept_codes.resize(tile.rows * row_bytes);
  kept_scales.resize(tile.rows);
  std::uint8_t* payload = at.block.payload;
  fp16_bits* scales = at.block.scales;
  for (std::size_t r = 0; r < tile.rows; ++r) {
    if (r == token) {
      std::copy_n(key, hd, rows.data() + r * hd);
      continue;
    }
    const std::size_t offset = at.base + r * at.stride;
    std::copy_n(payload + q3_payload_bytes(offset), row_bytes, kept_codes.data() + r * row_bytes);
    kept_scales[r] = scales[offset / hd];
    q3.dequantize({1, hd, 0, tile.codebook}, payload + q3_payload_bytes(offset), scales + offset / hd, hd, nullptr,
                  row.data(), hd);
    restore_q4o_outliers({block_rows, hd, tile.channels}, at.record, r, row.data());
    kernels.f32_to_fp16(row.data(), rows.data() + r * hd, hd);
  }
  q3.quantize(tile, rows.data(), hd, payload + q3_payload_bytes(at.base), scales + at.base / hd, at.stride,
              side.data());
  const std::size_t header = tile.channels * (sizeof(fp16_bits) + 1);
  if (!had_rows || !std::equal(side.data(), side.data() + header, at.record)) return;
  for (std::size_t r = 0; r < tile.rows; ++r) {
    if (r == token) continue;
    const std::size_t offset = at.base + r * at.stride;
    std::copy_n(kept_codes.data() + r * row_bytes, row_bytes, payload + q3_payload_bytes(offset));
    scales[offset / hd] = kept_scales[r];
  }
}

}  // namespace

std::uint8_t* paged_cache::q3_record(fp16_bits* scales, std::uint32_t layer,
                                     std::uint32_t head) const noexcept {
  return reinterpret_cast<std::uint8_t*>(scales) + q3_.side_offset +
         (std::size_t{layer} * shape().kv_heads + head) * q3_.record_bytes;
}

void paged_cache::load_q3(const std::uint8_t* payload, const fp16_bits* scales, std::size_t offset,
                          float* values) const noexcept {
  const std::size_t hd = shape().head_dim;
  const q3_tile heads{shape().kv_heads, hd, 0, q3_codebook::lloyd_max};
  best_q3_kernels().dequantize(heads, payload + q3_payload_bytes(offset), scales + offset / hd, hd, nullptr,
                               values, hd);
}

void paged_cache::restore_q3_keys(const fp16_bits* scales, std::uint32_t token, std::uint32_t layer,
                                  float* k) const noexcept {
  if (q3_.key_tile.channels == 0) return;
  const q4o_tile tile = outlier_tile(q3_.key_tile);
  for (std::uint32_t h = 0; h < shape().kv_heads; ++h) {
    restore_q4o_outliers(tile, q3_record(const_cast<fp16_bits*>(scales), layer, h), token,
                         k + std::size_t{h} * tile.head_dim);
  }
}

void paged_cache::store_q3_token(const block_data& d, std::uint32_t token, std::uint32_t layer,
                                 std::uint32_t written, std::span<const float> k,
                                 std::span<const float> v) const {
  const std::size_t hd = shape().head_dim;
  const std::size_t channels = q3_.key_tile.channels;
  const q3_kernel_set& q3 = best_q3_kernels();
  const q3_tile heads{shape().kv_heads, hd, 0, q3_codebook::lloyd_max};
  // Per thread: store_kv runs on several at once, each on its own blocks.
  thread_local std::vector<fp16_bits> halves;
  halves.resize(shape().head_values());
  const std::size_t offset = token_offset(token, layer);
  const std::size_t value_offset = offset + shape().head_values();
  kernels_.f32_to_fp16(v.data(), halves.data(), v.size());
  q3.quantize(heads, halves.data(), hd, d.payload + q3_payload_bytes(value_offset), d.scales + value_offset / hd,
              hd, nullptr);
  kernels_.f32_to_fp16(k.data(), halves.data(), k.size());
  if (channels == 0) {
    q3.quantize(heads, halves.data(), hd, d.payload + q3_payload_bytes(offset), d.scales + offset / hd, hd, nullptr);
    return;
  }
  // Only the rows written so far, as q4o: the rows after them hold nothing yet.
  const q3_tile tile{std::max<std::size_t>(written, std::size_t{token} + 1), hd, channels, q3_codebook::lloyd_max};
  thread_local std::vector<std::uint8_t> side;
  side.resize(q4o_side_bytes(tile.rows, channels));
  for (std::uint32_t h = 0; h < shape().kv_heads; ++h) {
    const key_tile_place at{d, token_offset(0, layer) + std::size_t{h} * hd, tile_row_stride(),
                            q3_record(d.scales, layer, h)};
    store_key_row(tile, at, token, written > 0, halves.data() + std::size_t{h} * hd, q3_.key_tile.rows, kernels_,
                  side);
    keep_side_record(side.data(), tile.rows, channels, at.record);
  }
}

void paged_cache::quantize_q3_block(const block_data& src, std::uint8_t* payload, fp16_bits* scales) const {
  // Blocks never grow back and q3 is the most compact level: no q3 block is ever a source.
  const std::size_t hd = shape().head_dim;
  const std::size_t stride = tile_row_stride();
  const q3_tile value_tile{block_size(), hd, 0, q3_codebook::lloyd_max};
  std::vector<fp16_bits> rows;  // a quantized source's tile, back to fp16
  std::vector<float> row(hd);
  if (src.tier != precision::fp16) rows.resize(std::size_t{block_size()} * hd);
  for (std::uint32_t layer = 0; layer < shape().layers; ++layer) {
    for (std::uint32_t h = 0; h < shape().kv_heads; ++h) {
      for (const bool key : {true, false}) {
        const std::size_t base = token_offset(0, layer) + (key ? 0 : shape().head_values()) + std::size_t{h} * hd;
        const fp16_bits* input = reinterpret_cast<const fp16_bits*>(src.payload) + base;
        std::size_t input_stride = stride;
        if (src.tier != precision::fp16) {
          for (std::uint32_t r = 0; r < block_size(); ++r) {
            load(src, base + r * stride, row);
            if (key && is_q4o(src.tier)) restore_q4o_outliers(q4o_.tile, side_record(src.scales, layer, h), r, row.data());
            kernels_.f32_to_fp16(row.data(), rows.data() + std::size_t{r} * hd, hd);
          }
          input = rows.data();
          input_stride = hd;
        }
        best_q3_kernels().quantize(key ? q3_.key_tile : value_tile, input, input_stride,
                                   payload + q3_payload_bytes(base), scales + base / hd, stride,
                                   key ? q3_record(scales, layer, h) : nullptr);
      }
    }
  }
}

}  // namespace kvscope
