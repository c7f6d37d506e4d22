#pragma once
// The block pool: a byte budget cut into frames; a frame holds 1 fp16, 2 q8/fp8, 4 q4 or 5 q3
// blocks.
// Its byte accounting, storage, metadata and threading: docs/ARCHITECTURE.md, "The block pool".
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "memory/arena.hpp"
#include "memory/cache_error.hpp"
#include "memory/frame_map.hpp"
#include "memory/index_set.hpp"
#include "memory/model_shape.hpp"
#include "memory/payload_mode.hpp"
#include "quant/fp16.hpp"
#include "quant/q4o.hpp"
#include "quant/tier_layout.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct block_pool_config {
  model_shape shape;
  std::uint32_t block_size = 16;  // tokens per block
  std::uint64_t budget_bytes = 0;
  payload_mode mode = payload_mode::data;
  bool prefault = false;  // data mode: write the payload arena once now (benchmarks)
  // How q4 blocks are stored (quant/q4o.hpp). q4o adds each block's side records, one per layer
  // and kv head, to the side table: counted against the budget as its scales are.
  q4_format q4_storage = q4_format::q4;
  // Key channels kept apart at int8 per block, layer and kv head by q4o, and by q3 always (its
  // side records, in the side table with its per-vector scales: quant/q3.hpp).
  std::uint32_t q4o_channels = q4o_default_channels;
};

struct tier_usage {
  std::uint64_t blocks = 0;         // live and cached blocks of this tier
  std::uint64_t cached_blocks = 0;  // of which cached
  // Sum of the refcounts of this tier's blocks: the block reads a step makes when every
  // sequence holding a block attends to it (a block shared by two sequences counts twice).
  std::uint64_t references = 0;
  std::uint32_t frames = 0;         // frames split for this tier
  std::uint64_t payload_bytes = 0;  // blocks x payload
  std::uint64_t slack_bytes = 0;    // empty slots of its frames, and what no slot fills (q3)
  std::uint64_t scale_bytes = 0;    // blocks x scale bytes
  std::uint64_t frame_bytes() const noexcept { return payload_bytes + slack_bytes; }
};

// sum of tiers' frame_bytes() + scale bytes + free_bytes == budget_bytes.
struct pool_usage {
  std::array<tier_usage, kv_level_count> tiers{};  // by ordinal(precision)
  std::uint64_t budget_bytes = 0;
  std::uint64_t bytes_in_use = 0;
  std::uint64_t free_bytes = 0;
  std::uint64_t scale_bytes = 0;
  std::uint64_t cached_bytes = 0;  // payload + scales of cached blocks (part of bytes_in_use)
  std::uint32_t frames = 0;
  std::uint32_t used_frames = 0;
  std::uint32_t scale_reserved_frames = 0;  // ceil(scale_bytes / frame_bytes)
  std::uint32_t free_frames = 0;            // frames - used - reserved
};

struct block_info {
  std::uint32_t frame = 0;
  std::uint8_t slot = 0;
  precision tier = precision::fp16;
  sequence_id owner = no_sequence;
  std::int32_t logical_index = -1;
  std::uint16_t fill = 0;
  std::uint16_t refcount = 0;
  bool cached = false;
};

// Where a block's bytes are (data mode; null pointers in accounting mode).
struct block_data {
  std::uint8_t* payload = nullptr;
  fp16_bits* scales = nullptr;
  precision tier = precision::fp16;
};

// A block's place before a relocation: block_pool::place_of(frame, slot), and its tier.
struct placement {
  std::uint32_t place = 0;
  precision tier = precision::fp16;
};

class block_pool {
 public:
  // A place names a frame and a slot in one 32-bit word: 3 bits of slot hold q3's 5 slots, and
  // 2^29 frames keep the highest place, (2^29 - 1) * 8 + 4, below no_place.
  static constexpr std::uint32_t slot_bits = 3;
  static constexpr std::uint32_t place_of(std::uint32_t frame, std::uint32_t slot) noexcept {
    return frame << slot_bits | slot;
  }
  static constexpr std::uint32_t frame_of(std::uint32_t place) noexcept { return place >> slot_bits; }
  static constexpr std::uint32_t slot_of(std::uint32_t place) noexcept {
    return place & ((1u << slot_bits) - 1u);
  }

  // Throws std::invalid_argument with validate()'s message for a bad config.
  explicit block_pool(const block_pool_config& config);

  // Why a config cannot make a pool (zero sizes, head_dim not a multiple of 32, budget under one
  // frame, frames over 2^29, q4o beyond its limits), or nullopt when it can.
  static std::optional<std::string> validate(const block_pool_config& config);

  block_pool(const block_pool&) = delete;
  block_pool& operator=(const block_pool&) = delete;

  const block_pool_config& config() const noexcept { return config_; }
  std::uint64_t frame_bytes() const noexcept { return frame_bytes_; }
  std::uint32_t frame_count() const noexcept { return static_cast<std::uint32_t>(frames_.size()); }
  std::uint64_t budget_bytes() const noexcept { return frame_bytes_ * frames_.size(); }
  const tier_layout& layout(precision p) const noexcept { return layouts_[ordinal(p)]; }

  // A new block of tier `tier` with refcount 1; out_of_memory changes nothing.
  expected<block_id, cache_error> allocate(precision tier, sequence_id owner,
                                           std::int32_t logical_index);
  // Up to `count` new blocks of `tier`, exactly as that many allocate() calls would hand them out
  // (logical indices first_logical, first_logical + 1, ...), stopping before the first that would
  // fail; their ids are appended to `out`. Returns how many. One pass for a prompt's blocks.
  std::uint32_t allocate_run(precision tier, sequence_id owner, std::int32_t first_logical,
                             std::uint32_t count, std::vector<block_id>& out);
  // How many more blocks of `tier` allocate() would hand out now.
  std::uint64_t allocatable(precision tier) const noexcept;

  // refcount + 1; a cached block comes back to life owned by `owner` at `logical_index`.
  void retain(block_id b, sequence_id owner, std::int32_t logical_index) noexcept;
  // refcount - 1 by `holder`. At zero the block is freed, or kept as cached when `keep_cached`.
  // Returns true when the refcount reached zero.
  bool release(block_id b, sequence_id holder, bool keep_cached) noexcept;
  // Frees a cached block. Precondition: is_cached(b).
  void evict(block_id b) noexcept;

  // Moves `blocks` to new places of tier `to`, all or nothing: sources are given up first, so
  // the batch may reuse their frames. Returns the old placements (for the caller to copy data
  // from, before anything writes the new places), or nullopt with no change when they do not fit.
  std::optional<std::vector<placement>> relocate(std::span<const block_id> blocks, precision to);

  // Allocated: referenced or cached.
  bool is_live(block_id b) const noexcept { return b < records_.size() && records_[b].place != no_place; }
  // Every block id ever handed out is below this (for tables indexed by block id).
  block_id block_id_limit() const noexcept { return static_cast<block_id>(records_.size()); }
  bool is_cached(block_id b) const noexcept { return records_[b].refs == 0; }
  std::uint16_t refcount(block_id b) const noexcept { return records_[b].refs; }
  precision tier(block_id b) const noexcept { return frames_[frame_of(records_[b].place)].tier; }
  std::uint16_t fill(block_id b) const noexcept { return records_[b].fill; }
  void set_fill(block_id b, std::uint16_t tokens) noexcept { records_[b].fill = tokens; }
  block_info info(block_id b) const noexcept;

  block_data data(block_id b) const noexcept { return data_at(records_[b].place, tier(b)); }
  // Changes whenever a block id may come to name another place or tier (a block was freed, so
  // its id can be reused, or relocated): a block_data from data() stays right while it does not.
  std::uint64_t layout_version() const noexcept { return layout_version_; }
  block_data data_at(std::uint32_t place, precision tier) const noexcept {
    if (!payload_) return {nullptr, nullptr, tier};
    auto* frame = reinterpret_cast<std::uint8_t*>(payload_.get()) + frame_of(place) * frame_bytes_;
    const std::size_t slot = std::size_t{frame_of(place)} * max_slots_per_frame + slot_of(place);
    return {frame + slot_of(place) * slot_bytes_[ordinal(tier)],
            scales_.get() + slot * scale_halves_per_slot_, tier};
  }

  std::uint64_t bytes_in_use() const noexcept { return used_frames_ * frame_bytes_ + scale_bytes_; }
  std::uint64_t free_bytes() const noexcept { return budget_bytes() - bytes_in_use(); }
  std::uint32_t free_frames() const noexcept {
    return frame_count() - used_frames_ - scale_reserved_frames_;
  }
  // bytes_in_use / budget, in [0, 1].
  double occupancy() const noexcept;
  pool_usage usage() const noexcept;
  // Sum of refcounts of the blocks at each level (pool_usage::tiers[].references), cheaply.
  const std::array<std::uint64_t, kv_level_count>& references() const noexcept { return references_; }

  // Every frame and the blocks in it, for the block map; `into` keeps its capacity.
  void snapshot(frame_map& into) const;
  frame_map snapshot() const;

  // Heap and object bytes of all bookkeeping (payload and scale arenas excluded).
  std::size_t metadata_bytes() const noexcept;
  // The first broken internal invariant, or empty when all hold (tests, debugging).
  std::string audit() const;

 private:
  struct record {
    std::uint32_t place;  // place_of(frame, slot); no_place when the record is unused
    sequence_id owner;
    std::int32_t logical;  // logical index; next unused record while unused
    std::uint16_t fill;
    std::uint16_t refs;  // 0 with a place = cached
  };
  struct frame_state {
    precision tier = precision::fp16;  // fp16 while free
    std::uint8_t used = 0;             // bit s set: slot s holds a block
  };
  static constexpr std::uint32_t no_place = 0xFFFFFFFFu;

  std::uint32_t reserve_for(std::uint64_t scale_bytes) const noexcept;
  std::uint32_t find_place(precision tier) const noexcept;  // no_place when it does not fit
  void occupy(std::uint32_t place, precision tier) noexcept;
  void vacate(std::uint32_t place) noexcept;
  block_id new_record();
  void free_record(block_id b) noexcept;

  block_pool_config config_;
  std::uint64_t frame_bytes_ = 0;
  std::array<tier_layout, kv_level_count> layouts_{};
  std::vector<record> records_;
  block_id free_records_ = no_block;
  std::vector<frame_state> frames_;
  index_set free_set_;                // frames with no live slot
  std::array<index_set, kv_level_count> open_set_;  // split frames with a live and an empty slot, by tier
  std::uint32_t used_frames_ = 0;
  std::uint64_t scale_bytes_ = 0;
  // reserve_for(scale_bytes_), kept as scale_bytes_ changes: free_frames() and every fp16
  // allocation ask for it, and a 64-bit division each time is dear.
  std::uint32_t scale_reserved_frames_ = 0;
  std::array<std::uint64_t, kv_level_count> blocks_{};
  std::array<std::uint64_t, kv_level_count> cached_{};
  std::uint64_t layout_version_ = 0;
  std::array<std::uint64_t, kv_level_count> references_{};  // sum of refcounts, by tier
  std::array<std::uint32_t, kv_level_count> tier_frames_{};
  arena_ptr<fp16_bits> payload_;  // data mode: frames x F bytes
  arena_ptr<fp16_bits> scales_;   // data mode: max_slots_per_frame x max scale halves per frame
  std::size_t scale_halves_per_slot_ = 0;
  std::array<std::uint64_t, kv_level_count> slot_bytes_{};  // payload bytes of one slot, by tier
};

}  // namespace kvscope
