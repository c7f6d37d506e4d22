#pragma once
// What the block map draws: every frame of the pool and the blocks it holds, as plain values.
// A frame is the memory of one fp16 block; it holds 1 fp16 block, 2 eight-bit (q8/fp8) blocks,
// 4 q4 blocks or 5 q3 blocks (see memory/block_pool.hpp). Shared by the pool (which fills it) and the UI (which draws it).
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "quant/level.hpp"
#include "quant/tier_layout.hpp"
#include "util/ids.hpp"

namespace kvscope {

struct block_slot {
  sequence_id owner = no_sequence;  // allocating (or reviving) sequence; no_sequence once it let go
  std::int32_t logical_index = -1;  // position in the owner's block table
  std::uint16_t fill = 0;           // tokens written, 0..block_size
  std::uint16_t refcount = 0;       // 0 = free (or cached, see below); >1 = shared prefix
  bool cached = false;              // freed, but kept for prefix-cache hits (LRU)
  block_id block = no_block;        // the block's handle; no_block when the slot is empty

  friend bool operator==(const block_slot&, const block_slot&) = default;
};

struct frame_info {
  precision tier = precision::fp16;  // how the frame is split; fp16 for an unsplit free frame
  std::uint8_t slot_count = 1;       // 1 (fp16), 2 (q8/fp8), 4 (q4) or 5 (q3)
  std::array<block_slot, max_slots_per_frame> blocks{};  // blocks[0 .. slot_count)

  bool is_free() const {
    for (int i = 0; i < slot_count; ++i) {
      if (blocks[i].refcount != 0 || blocks[i].cached) return false;
    }
    return true;
  }
  friend bool operator==(const frame_info&, const frame_info&) = default;
};

struct frame_map {
  std::uint32_t block_size = 16;  // tokens per block
  std::vector<frame_info> frames;
  std::uint64_t frame_bytes = 0;             // bytes of one frame (one fp16 block)
  std::uint64_t scale_bytes = 0;             // quantization scales in the side table
  std::uint32_t scale_reserved_frames = 0;   // frames' worth of budget the scales take
};

// Frames by what holds them: a block some sequence uses (in use), only blocks the prefix cache
// keeps (cached: evicted on demand), or nothing (free). The block map's header says these.
struct frame_counts {
  std::size_t in_use = 0;
  std::size_t cached = 0;
  std::size_t free = 0;
};

inline frame_counts count_frames(const frame_map& map) noexcept {
  frame_counts c;
  for (const frame_info& f : map.frames) {
    bool referenced = false, kept = false;
    for (int i = 0; i < f.slot_count; ++i) {
      referenced |= f.blocks[i].refcount != 0;
      kept |= f.blocks[i].cached;
    }
    ++(referenced ? c.in_use : kept ? c.cached : c.free);
  }
  return c;
}

}  // namespace kvscope
