#pragma once
// The vocabulary of handles every layer shares, in one small header.
#include <cstdint>

namespace kvscope {

// A sequence in the paged cache (small, reused: the lowest free id is taken).
using sequence_id = std::int32_t;
inline constexpr sequence_id no_sequence = -1;

// A physical block's handle in the pool: stable while the block lives (also across migration).
using block_id = std::uint32_t;
inline constexpr block_id no_block = 0xFFFFFFFFu;

// A request as its load numbers it (trace row order, generator count, or the native file's id).
using request_id = std::uint64_t;

}  // namespace kvscope
