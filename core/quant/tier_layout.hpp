#pragma once
// Bytes of one block at each precision tier: payload and quantization scales, both real.
// Every format works on groups of 32 consecutive values of one head vector:
//   fp16  32 x 2 B                                      64 B / group, no scale
//   q8    32 x int8, fp16 scale d (x = q*d)              32 B + 2 B
//   fp8   32 x e4m3, fp16 scale d (x = e4m3(c)*d)        32 B + 2 B   (per-group scale)
//   q4    32 x 4-bit, fp16 scale d and fp16 min m        16 B + 4 B   (x = q*d + m, as ggml q4_1)
//   q3    32 x 3-bit rotated codes (quant/q3.hpp)        12 B + its side (below)
// Scales are stored apart from the payload (a side table), so the payload of a block is exactly
// nominal_factor x the fp16 block and packs 1/2/4/5 blocks into an fp16 frame. q4o's side records
// (quant/q4o.hpp) live in the side table too, so a q4 block stored as q4o still packs 4 a frame.
// q3's scales are one a head vector, not one a group, so its side (scales and its keys' outlier
// records, q3_block_side_bytes) depends on the shape: the pool passes it as side_bytes.
#include <cstddef>
#include <cstdint>

#include "quant/level.hpp"
#include "quant/q3.hpp"

namespace kvscope {

inline constexpr std::size_t group_size = 32;

namespace detail {  // by ordinal; at namespace scope so lookups need no per-call table
inline constexpr std::size_t payload_bytes_per_group[] = {64, 32, 32, 16, q3_payload_bytes(32)};
inline constexpr std::size_t scale_bytes_per_group[] = {0, 2, 2, 4, 0};
inline constexpr std::uint32_t slots_per_frame[] = {1, 2, 2, 4, q3_slots_per_frame};
}  // namespace detail

// The most blocks a frame holds (q3's): the size of a frame's slot table.
inline constexpr std::uint32_t max_slots_per_frame = q3_slots_per_frame;

constexpr std::size_t payload_bytes_per_group(precision p) noexcept {
  return detail::payload_bytes_per_group[ordinal(p)];
}

constexpr std::size_t scale_bytes_per_group(precision p) noexcept {
  return detail::scale_bytes_per_group[ordinal(p)];
}

// fp16 halves of scale data per group: 0, 1 (d), 1 (d), 2 (d then m), 0 (q3: per vector).
constexpr std::size_t scale_halves_per_group(precision p) noexcept {
  return scale_bytes_per_group(p) / 2;
}

// Blocks of this tier sharing one fp16-sized frame: 1, 2, 2, 4, 5 (as many as fit: 64 / 12).
constexpr std::uint32_t slots_per_frame(precision p) noexcept {
  return detail::slots_per_frame[ordinal(p)];
}

struct tier_layout {
  precision tier = precision::fp16;
  std::uint32_t slots_per_frame = 1;
  std::uint64_t payload_bytes = 0;  // bytes of quantized values of one block
  // Bytes of its scales (and mins) in the side table, and of its side records when it has them
  // (q4o's outlier channels, quant/q4o.hpp): all the side table holds for the block.
  std::uint64_t scale_bytes = 0;
  double nominal_factor = 1.0;      // payload / fp16 block: 1, 0.5, 0.5, 0.25, 0.1875
  double effective_factor = 1.0;    // (payload + scales) / fp16 block: 1, 0.53125, 0.53125, 0.3125, ...

  std::uint64_t total_bytes() const noexcept { return payload_bytes + scale_bytes; }
};

// Layout of a block of `elements` values (K and V of all its tokens, layers and heads) that
// keeps `side_bytes` more in the side table beside its scales (0 but for q4o's q4 blocks and q3's).
// Precondition: elements is a positive multiple of group_size.
tier_layout block_layout(precision p, std::uint64_t elements, std::uint64_t side_bytes = 0) noexcept;

}  // namespace kvscope
