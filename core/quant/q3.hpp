#pragma once
// q3: the 3-bit storage format of the level below q4. Each head vector is rotated so its
// values look Gaussian, then stored as 3-bit codes of a fixed codebook with one fp16 scale a
// vector; keys also keep q4o's outlier channels at int8 (quant/q4o.hpp), left out of the rotation.
//
// Rotation (as QuaRot): y = H D x, D a diagonal of fixed random signs (q3_sign_seed, the same for
// every layer and head), H the unnormalized Walsh-Hadamard matrix applied to each block of n
// channels, n the largest power of two dividing head_dim (128 for head_dim 128). Butterflies run
// stage by stage (len 1, 2, 4, ...: a, b -> a + b, a - b), each add rounded on its own.
// Codebook (as TurboQuant): 8 centroids c_i for a unit Gaussian and the 7 midpoints t_i between
// them; q3_codebook::lloyd_max is Max's (1960) MSE-optimal one, q3_codebook::uniform his optimal
// uniform one (step 0.586), kept for comparison.
//
// A tile is `rows` head vectors of one (layer, kv head) of a block, as in q4o. Row r stores
//   codes   head_dim * 3 / 8 bytes at payload + r * stride * 3 / 8: per group of 32 rotated values
//           12 bytes, a little-endian 96-bit number in which value i = 8 s + j (s < 4, j < 8) has
//           its code at bit 12 j + 3 s (so the 4 codes an AVX2 lane decodes are 12 bits together)
//   scale   one fp16 s = fp16(sqrt(sum y^2 / (n * head_dim))) (the RMS of x) at
//           scales[r * stride / head_dim]
// and a key tile with k > 0 channels has q4o's side record (q4o_side_bytes(rows, k)): the k
// channels are zeroed before the rotation and restored from it after.
// Quantize: u = y * (1 / (s * sqrt(n))), m = #{j in 4..6 : |u| > t_j}, code = 3 - m when u's sign
// bit is set, else 4 + m (the codebooks are symmetric: t_3 = 0). The sum of squares runs in 8
// lanes (lane l adds y[8j + l]^2 for j = 0, 1, ...) folded as ((l0 + l4) + (l2 + l6)) +
// ((l1 + l5) + (l3 + l7)), the order of an AVX2 reduction. Dequantize: y' = c[code] * (s / sqrt(n)),
// x' = D H y' (H H = n I), then the outlier channels' q * d_j.
//
// Three implementations, scalar, AVX2 and AVX-512, producing identical bits for every finite input
// (tests check it). Precondition for every kernel: inputs are finite.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "quant/fp16.hpp"
#include "quant/q4o.hpp"
#include "quant/tile_kernels.hpp"

namespace kvscope {

enum class q3_codebook : std::uint8_t { lloyd_max = 0, uniform = 1 };

// "lloyd-max" or "uniform".
std::string_view tag(q3_codebook c) noexcept;
// Parses a tag exactly as `tag` writes it; nullopt for anything else.
std::optional<q3_codebook> parse_q3_codebook(std::string_view tag) noexcept;

struct q3_table {
  std::array<float, 8> centroid;   // ascending, for a unit Gaussian
  std::array<float, 7> threshold;  // midpoints of neighbouring centroids
};
// The table of a codebook.
const q3_table& table_of(q3_codebook c) noexcept;

inline constexpr std::uint64_t q3_sign_seed = 0x9E3779B97F4A7C15ull;
// D as q4o_max_head_dim sign bits (0 or 0x80000000), channel by channel, 32-byte aligned.
const std::uint32_t* q3_sign_bits() noexcept;

// Channels one Hadamard transform spans: the largest power of two dividing head_dim.
constexpr std::size_t q3_rotation_size(std::size_t head_dim) noexcept {
  return head_dim & (~head_dim + 1);
}

// Payload bytes of n values (a multiple of 32): 12 bytes a group of 32.
constexpr std::size_t q3_payload_bytes(std::size_t values) noexcept { return values / 32 * 12; }

// Blocks of q3 payload that fit the frame of one fp16 block: 16 bits a value over 3.
inline constexpr std::uint32_t q3_slots_per_frame = 5;

// Bytes of a q3 block's side table: an fp16 scale for each of its `vectors` head vectors (K and V
// of every token, layer and kv head, in the block's order), then one side record per key tile
// (`tiles`, one a layer and kv head, none when channels is 0), padded to whole fp16 halves.
constexpr std::size_t q3_block_side_bytes(std::size_t vectors, std::size_t tiles, std::size_t rows,
                                          std::size_t channels) noexcept {
  return vectors * sizeof(fp16_bits) + (channels == 0 ? 0 : q4o_block_side_bytes(tiles, rows, channels));
}

// Bits per stored value of a block: 3-bit codes, one fp16 scale per head vector, and each key
// tile's side record spread over the tile's K and V values.
constexpr double q3_bits_per_value(std::size_t rows, std::size_t head_dim, std::size_t channels) noexcept {
  return 3.0 + 16.0 / static_cast<double>(head_dim) +
         8.0 * static_cast<double>(q4o_side_bytes(rows, channels)) / static_cast<double>(2 * rows * head_dim);
}

struct q3_tile {
  std::size_t rows = 0;      // head vectors (tokens)
  std::size_t head_dim = 0;  // values a row: a multiple of 32, at most q4o_max_head_dim
  std::size_t channels = q4o_default_channels;  // outlier channels k (0 for values)
  q3_codebook codebook = q3_codebook::lloyd_max;
};

// True when the tile's sizes are within the format's limits (the kernels assert it).
constexpr bool valid_q3_tile(const q3_tile& t) noexcept {
  return t.rows > 0 && t.head_dim > 0 && t.head_dim % 32 == 0 && t.head_dim <= q4o_max_head_dim &&
         t.channels <= q4o_max_channels && t.channels <= t.head_dim;
}

// q4o's view of the tile, for its side record.
constexpr q4o_tile outlier_tile(const q3_tile& t) noexcept { return {t.rows, t.head_dim, t.channels}; }

// The kernels (quant/tile_kernels.hpp), with out_stride / in_stride a multiple of head_dim; the
// side record is unused when channels is 0.
using q3_kernel_set = tile_kernel_set<q3_tile>;

// The portable implementation, always available.
const q3_kernel_set& scalar_q3_kernels() noexcept;
// The AVX2+F16C implementation, or nullptr when this CPU or build lacks it.
const q3_kernel_set* avx2_q3_kernels() noexcept;
// The AVX-512 implementation (quantize; dequantize is AVX2's), or nullptr when this CPU or build
// lacks it (as avx512_q4o_kernels).
const q3_kernel_set* avx512_q3_kernels() noexcept;
// The fastest set this CPU supports, chosen once on first use.
const q3_kernel_set& best_q3_kernels() noexcept;

namespace q3_detail {
// The row's scale from its rotated values' 8 lane sums (the order above).
fp16_bits row_scale(const float* lane_sums, std::size_t head_dim) noexcept;
// 1 / (s * sqrt(n)), or 0 for a zero scale: what quantize multiplies y by.
float inverse_step(fp16_bits scale, std::size_t head_dim) noexcept;
// s / sqrt(n): what dequantize multiplies a centroid by. Inline: once a row, and with head_dim
// a constant the square root folds.
inline float decode_step(fp16_bits scale, std::size_t head_dim) noexcept {
  return fp16_to_f32(scale) / std::sqrt(static_cast<float>(q3_rotation_size(head_dim)));
}
}  // namespace q3_detail

}  // namespace kvscope
