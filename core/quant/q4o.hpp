#pragma once
// q4o: the outlier-aware storage format of the q4 level. Keys have a few channels of large
// magnitude (per layer and head); in a q4 group of 32 such a channel stretches the group's range,
// so every other value of the group loses precision. q4o keeps, per tile, the k channels of
// largest magnitude apart at int8 and quantizes the rest at q4 as before.
//
// A tile is `rows` head vectors of one (layer, kv head) of a block's keys (a block's tokens), each
// of head_dim values. Its storage:
//   q4 codes and scales   exactly as quantize(q4) stores each row: head_dim / 2 bytes and
//                         head_dim / 32 x (d, m) fp16 pairs; the outlier channels are left out of
//                         each group's min and max (their codes are a stand-in's, never read)
//   side record           q4o_side_bytes(rows, k) bytes, in the side table:
//                           k fp16 scales d_j        (x = q * d_j, d_j = fp16(amax_j / 127))
//                           k uint8 channel indices  (ascending)
//                           k x rows int8 codes      (channel-major, in the order of the indices)
// Values (V) use plain q4. Channel pick: the k largest max |x| over the tile's rows, compared as
// fp16 magnitudes; ties go to the lower channel. Rounding as q8 (quant/kernels.hpp).
//
// Three implementations, scalar, AVX2 and AVX-512, producing identical bits for every finite input
// (tests check it). Precondition for every kernel: inputs are finite.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "quant/fp16.hpp"
#include "quant/tile_kernels.hpp"

namespace kvscope {

// How the q4 level stores its blocks. q4 is the default and what the reference runtime stores
// (docs/policy.md, "The reference runtime").
enum class q4_format : std::uint8_t { q4 = 0, q4o = 1 };

// "q4" or "q4o".
std::string_view tag(q4_format f) noexcept;
// Parses a tag exactly as `tag` writes it; nullopt for anything else.
std::optional<q4_format> parse_q4_format(std::string_view tag) noexcept;

inline constexpr std::uint32_t q4o_default_channels = 4;
// At most 16 of a group's 32 channels are outliers, so each group keeps a stand-in; indices are
// one byte, so head_dim <= 256.
inline constexpr std::uint32_t q4o_max_channels = 16;
inline constexpr std::uint32_t q4o_max_head_dim = 256;

// Bytes of one tile's side record: k scales, k indices, rows x k codes.
constexpr std::size_t q4o_side_bytes(std::size_t rows, std::size_t channels) noexcept {
  return channels * (sizeof(fp16_bits) + 1) + rows * channels;
}

// Bits per stored value of a block in q4o: q4's 5 bits (4-bit code, fp16 d and m per 32 values)
// plus each key tile's side record spread over the tile's K and V values.
constexpr double q4o_bits_per_value(std::size_t rows, std::size_t head_dim,
                                    std::size_t channels) noexcept {
  return 5.0 + 8.0 * static_cast<double>(q4o_side_bytes(rows, channels)) /
                   static_cast<double>(2 * rows * head_dim);
}

// Bytes of a q4 block's side records in q4o: one record per key tile (per layer and kv head),
// back to back, padded to whole fp16 halves because the pool's side table is an array of halves.
constexpr std::size_t q4o_block_side_bytes(std::size_t tiles, std::size_t rows,
                                           std::size_t channels) noexcept {
  const std::size_t bytes = tiles * q4o_side_bytes(rows, channels);
  return bytes + bytes % 2;
}

struct q4o_tile {
  std::size_t rows = 0;      // head vectors (tokens)
  std::size_t head_dim = 0;  // values a row: a multiple of 32, at most q4o_max_head_dim
  std::size_t channels = q4o_default_channels;  // k, at most q4o_max_channels
};

// The kernels (quant/tile_kernels.hpp). Row r's q4 codes are at payload + r * out_stride / 2 and
// its scales at scales + r * out_stride / 16 (strides in values, multiples of 32).
using q4o_kernel_set = tile_kernel_set<q4o_tile>;

// The portable implementation, always available.
const q4o_kernel_set& scalar_q4o_kernels() noexcept;
// The AVX2+F16C implementation, or nullptr when this CPU or build lacks it.
const q4o_kernel_set* avx2_q4o_kernels() noexcept;
// The AVX-512 implementation (F, BW, DQ, VL and VBMI, with AVX2), or nullptr when this CPU or
// build lacks it.
const q4o_kernel_set* avx512_q4o_kernels() noexcept;
// The fastest set this CPU supports, chosen once on first use.
const q4o_kernel_set& best_q4o_kernels() noexcept;

// Row `row` of a stored tile, its outlier channels only: dst[c_j] = code(j, row) x d_j for each
// kept channel c_j, the rest of dst untouched. What dequantize does after the row's q4 part, for
// a reader that dequantized the row at q4 itself (one row of a block rather than a tile).
void restore_q4o_outliers(const q4o_tile& tile, const std::uint8_t* side, std::size_t row,
                          float* dst) noexcept;

// True when the tile's sizes are within the format's limits (the kernels assert it).
constexpr bool valid_q4o_tile(const q4o_tile& t) noexcept {
  return t.rows > 0 && t.head_dim > 0 && t.head_dim % 32 == 0 && t.head_dim <= q4o_max_head_dim &&
         t.channels <= q4o_max_channels;
}

namespace q4o_detail {
// The reference pick (the scalar kernels use it; the AVX2 ones pick the same channels with
// vector maxima). Picks the k channels of largest magnitude: `magnitude[c]` is the largest |x|
// of channel c as fp16 bits without sign. Writes k indices, ascending, to `channels`.
void pick_channels(const std::uint16_t* magnitude, std::size_t head_dim, std::size_t k,
                   std::uint8_t* channels) noexcept;
// stand_in[j]: the first channel of outlier channels[j]'s group of 32 that is not an outlier.
// Its value replaces the outlier's before q4 quantization, so the outlier drops out of the
// group's min and max.
void stand_ins(const std::uint8_t* channels, std::size_t k, std::uint8_t* stand_in) noexcept;
// The head of a tile's side record, shared with q3 (quant/q3.hpp): picks the channels from the
// rows at src, src_stride apart, and writes their scales and indices; inv[j] = 1 / d_j, or 0.
void write_side_header(const q4o_tile& t, const fp16_bits* src, std::size_t src_stride,
                       std::uint8_t* side, float* inv) noexcept;
// int8 code of an outlier value: rne(clamp(x * inv, -127, 127)).
std::int8_t outlier_code(float x, float inv) noexcept;
// The AVX2 versions of the two (identical bits), and of outlier_code for channel `channel` of
// `rows` rows src_stride apart (codes[r] for row r). Defined in AVX2 builds only; call only when
// avx2_q4o_kernels() is set.
void write_side_header_avx2(const q4o_tile& t, const fp16_bits* src, std::size_t src_stride,
                            std::uint8_t* side, float* inv) noexcept;
void outlier_codes_avx2(const fp16_bits* src, std::size_t src_stride, std::size_t rows,
                        std::size_t channel, float inv, std::int8_t* codes) noexcept;
// write_side_header with AVX-512 maxima over the rows (identical bits). Defined in AVX-512 builds
// only; call only when avx512_q4o_kernels() is set.
void write_side_header_avx512(const q4o_tile& t, const fp16_bits* src, std::size_t src_stride,
                              std::uint8_t* side, float* inv) noexcept;
// write_side_header_avx2 from the channels' magnitudes (what the pick takes, q4o_max_head_dim
// of them), for a kernel that gathered them itself.
void side_header_from_magnitudes_avx2(const q4o_tile& t, const std::uint16_t* magnitude,
                                      std::uint8_t* side, float* inv) noexcept;
// Requests `bytes` from `ahead` bytes past `at` into the cache; never faults, wherever that is
// (an integer address: past the tile, pointer arithmetic would be undefined). Inline: a call
// from the AVX2 row loops made them save and restore their vector registers around it. With
// Write, for lines about to be written: the stores then find their line, and its page's
// translation, ready. The kernels are not built for PREFETCHW (a CPUID feature of its own, which
// AVX2 does not imply), so the compiler emits an ordinary prefetch for it.
template <bool Write = false>
inline void prefetch_ahead(const void* at, std::size_t ahead, std::size_t bytes) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(at) + ahead;
  for (std::size_t line = 0; line < bytes; line += 64) {
    __builtin_prefetch(reinterpret_cast<const void*>(first + line), Write ? 1 : 0, 3);
  }
#else
  (void)at, (void)ahead, (void)bytes;
#endif
}
}  // namespace q4o_detail

}  // namespace kvscope
