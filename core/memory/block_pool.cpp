#include "memory/block_pool.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <stdexcept>

namespace kvscope {
namespace {

constexpr std::uint32_t max_frames = 1u << 29;  // every place must fit 32 bits (place_of)

std::uint8_t full_mask(precision tier) {
  return static_cast<std::uint8_t>((1u << slots_per_frame(tier)) - 1u);
}

}  // namespace

std::optional<std::string> block_pool::validate(const block_pool_config& c) {
  if (c.shape.layers == 0 || c.shape.kv_heads == 0 || c.shape.head_dim == 0) {
    return "model shape needs layers, kv_heads and head_dim > 0";
  }
  if (c.shape.head_dim % group_size != 0) return "head_dim must be a multiple of 32";
  if (c.block_size == 0 || c.block_size > 0xFFFF) return "block_size must be in [1, 65535]";
  const std::uint64_t frame = c.shape.frame_bytes(c.block_size);
  if (c.budget_bytes < frame) return "budget is smaller than one frame (one fp16 block)";
  if (c.budget_bytes / frame > max_frames) return "budget holds more than 2^29 frames";
  if (c.q4_storage == q4_format::q4o && !valid_q4o_tile({c.block_size, c.shape.head_dim, c.q4o_channels})) {
    return "q4o stores head_dim up to " + std::to_string(q4o_max_head_dim) + " and up to " +
           std::to_string(q4o_max_channels) + " key channels, got head_dim " +
           std::to_string(c.shape.head_dim) + " and " + std::to_string(c.q4o_channels);
  }
  return std::nullopt;
}

block_pool::block_pool(const block_pool_config& config) : config_(config) {
  if (auto why = validate(config)) throw std::invalid_argument(*why);
  const std::uint64_t values = std::uint64_t{config.block_size} * config.shape.values_per_token();
  frame_bytes_ = values * 2;
  const std::size_t tiles = config.shape.layers * std::size_t{config.shape.kv_heads};
  const std::uint64_t q4o_side = config.q4_storage == q4_format::q4o
                                     ? q4o_block_side_bytes(tiles, config.block_size, config.q4o_channels)
                                     : 0;
  const std::uint64_t q3_side =
      q3_block_side_bytes(values / config.shape.head_dim, tiles, config.block_size, config.q4o_channels);
  for (precision p : all_precisions) {
    const std::uint64_t side = p == precision::q4 ? q4o_side : p == precision::q3 ? q3_side : 0;
    layouts_[ordinal(p)] = block_layout(p, values, side);
    slot_bytes_[ordinal(p)] = layouts_[ordinal(p)].payload_bytes;
    scale_halves_per_slot_ = std::max<std::size_t>(scale_halves_per_slot_, layouts_[ordinal(p)].scale_bytes / 2);
  }
  const auto frames = static_cast<std::uint32_t>(config.budget_bytes / frame_bytes_);
  frames_.resize(frames);
  free_set_ = index_set(frames, true);
  for (auto& set : open_set_) set = index_set(frames);
  records_.reserve(frames);
  if (config.mode == payload_mode::data) {
    payload_.reset(static_cast<fp16_bits*>(allocate_arena(frame_bytes_ * frames)));
    scales_.reset(static_cast<fp16_bits*>(
        allocate_arena(scale_halves_per_slot_ * max_slots_per_frame * frames * sizeof(fp16_bits))));
    if (config.prefault) std::memset(payload_.get(), 0, frame_bytes_ * frames);
  }
}

std::uint32_t block_pool::reserve_for(std::uint64_t scale_bytes) const noexcept {
  return static_cast<std::uint32_t>((scale_bytes + frame_bytes_ - 1) / frame_bytes_);
}

double block_pool::occupancy() const noexcept {
  return static_cast<double>(bytes_in_use()) / static_cast<double>(budget_bytes());
}

std::uint32_t block_pool::find_place(precision tier) const noexcept {
  const index_set& open = open_set_[ordinal(tier)];
  std::uint32_t frame = 0;
  std::uint32_t slot = 0;
  bool new_frame = false;
  if (!open.empty()) {
    frame = open.first();
    slot = static_cast<std::uint32_t>(std::countr_one(frames_[frame].used));
  } else if (!free_set_.empty()) {
    frame = free_set_.first();
    new_frame = true;
  } else {
    return no_place;
  }
  const std::uint64_t scale = layout(tier).scale_bytes;
  const std::uint64_t frames_needed =
      used_frames_ + (new_frame ? 1u : 0u) +
      (scale == 0 ? scale_reserved_frames_ : reserve_for(scale_bytes_ + scale));
  if (frames_needed > frame_count()) return no_place;
  return place_of(frame, slot);
}

void block_pool::occupy(std::uint32_t place, precision tier) noexcept {
  const int t = ordinal(tier);
  frame_state& frame = frames_[frame_of(place)];
  if (frame.used == 0) {
    free_set_.erase(frame_of(place));
    frame.tier = tier;
    ++used_frames_;
    ++tier_frames_[t];
  }
  assert(frame.tier == tier && (frame.used & (1u << slot_of(place))) == 0);
  frame.used = static_cast<std::uint8_t>(frame.used | (1u << slot_of(place)));
  if (slots_per_frame(tier) > 1) {
    if (frame.used == full_mask(tier)) {
      open_set_[t].erase(frame_of(place));
    } else {
      open_set_[t].insert(frame_of(place));
    }
  }
  if (layouts_[t].scale_bytes != 0) {
    scale_bytes_ += layouts_[t].scale_bytes;
    scale_reserved_frames_ = reserve_for(scale_bytes_);
  }
  ++blocks_[t];
}

void block_pool::vacate(std::uint32_t place) noexcept {
  frame_state& frame = frames_[frame_of(place)];
  if (frame.tier == precision::fp16) {
    // What the general path below does for the commonest block, without its branches: an fp16
    // block fills its frame alone and has no scales, so its frame is free again.
    constexpr int fp16 = ordinal(precision::fp16);
    assert(frame.used == 1 && layouts_[fp16].scale_bytes == 0);
    frame.used = 0;
    --blocks_[fp16];
    free_set_.insert(frame_of(place));
    --used_frames_;
    --tier_frames_[fp16];
    return;
  }
  const int t = ordinal(frame.tier);
  assert((frame.used & (1u << slot_of(place))) != 0);
  frame.used = static_cast<std::uint8_t>(frame.used & ~(1u << slot_of(place)));
  if (layouts_[t].scale_bytes != 0) {
    scale_bytes_ -= layouts_[t].scale_bytes;
    scale_reserved_frames_ = reserve_for(scale_bytes_);
  }
  --blocks_[t];
  if (frame.used == 0) {
    if (slots_per_frame(frame.tier) > 1) open_set_[t].erase(frame_of(place));
    free_set_.insert(frame_of(place));
    frame.tier = precision::fp16;
    --used_frames_;
    --tier_frames_[t];
  } else {
    open_set_[t].insert(frame_of(place));
  }
}

block_id block_pool::new_record() {
  if (free_records_ != no_block) {
    const block_id b = free_records_;
    free_records_ = static_cast<block_id>(records_[b].logical);
    return b;
  }
  records_.push_back({});
  return static_cast<block_id>(records_.size() - 1);
}

void block_pool::free_record(block_id b) noexcept {
  ++layout_version_;  // b may come back naming another place
  records_[b] = {no_place, no_sequence, static_cast<std::int32_t>(free_records_), 0, 0};
  free_records_ = b;
}

expected<block_id, cache_error> block_pool::allocate(precision tier, sequence_id owner,
                                                     std::int32_t logical_index) {
  const std::uint32_t place = find_place(tier);
  if (place == no_place) return unexpected{cache_error::out_of_memory};
  occupy(place, tier);
  const block_id b = new_record();
  records_[b] = {place, owner, logical_index, 0, 1};
  ++references_[ordinal(tier)];
  return b;
}

std::uint32_t block_pool::allocate_run(precision tier, sequence_id owner, std::int32_t first_logical,
                                       std::uint32_t count, std::vector<block_id>& out) {
  if (tier != precision::fp16) {
    std::uint32_t made = 0;
    for (; made < count; ++made) {
      const auto b = allocate(tier, owner, first_logical + static_cast<std::int32_t>(made));
      if (!b) break;
      out.push_back(*b);
    }
    return made;
  }
  // fp16 takes a whole free frame and no scales: allocate() succeeds while a frame is free beyond
  // the scales' reserve, each time on the lowest free frame.
  const std::uint32_t made = std::min(count, free_frames());
  std::int32_t logical = first_logical;
  const std::size_t at = out.size();
  out.resize(at + made);  // once, not a push_back call per block
  block_id* into = out.data() + at;
  free_set_.take_smallest(made, [&](std::uint32_t frame) {
    assert(frames_[frame].used == 0 && frames_[frame].tier == precision::fp16);
    frames_[frame].used = 1;
    const block_id b = new_record();
    records_[b] = {place_of(frame, 0), owner, logical++, 0, 1};
    *into++ = b;
  });
  used_frames_ += made;
  tier_frames_[ordinal(precision::fp16)] += made;
  blocks_[ordinal(precision::fp16)] += made;
  references_[ordinal(precision::fp16)] += made;
  return made;
}

std::uint64_t block_pool::allocatable(precision tier) const noexcept {
  const int t = ordinal(tier);
  const std::uint64_t k = slots_per_frame(tier);
  const std::uint64_t open_slots = std::uint64_t{tier_frames_[t]} * k - blocks_[t];
  const std::uint64_t free_physical = frame_count() - used_frames_;
  const auto fits = [&](std::uint64_t n) {
    const std::uint64_t new_frames = n <= open_slots ? 0 : (n - open_slots + k - 1) / k;
    return used_frames_ + new_frames + reserve_for(scale_bytes_ + n * layouts_[t].scale_bytes) <=
           frame_count();
  };
  std::uint64_t lo = 0;  // fits(lo) holds
  std::uint64_t hi = open_slots + k * free_physical;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

void block_pool::retain(block_id b, sequence_id owner, std::int32_t logical_index) noexcept {
  record& r = records_[b];
  assert(is_live(b) && r.refs < 0xFFFF);
  if (r.refs == 0) {
    --cached_[ordinal(tier(b))];
    r.owner = owner;
    r.logical = logical_index;
  }
  ++r.refs;
  ++references_[ordinal(tier(b))];
}

bool block_pool::release(block_id b, sequence_id holder, bool keep_cached) noexcept {
  record& r = records_[b];
  assert(is_live(b) && r.refs > 0);
  if (r.owner == holder) r.owner = no_sequence;
  --references_[ordinal(tier(b))];
  if (--r.refs != 0) return false;
  if (keep_cached) {
    ++cached_[ordinal(tier(b))];
  } else {
    vacate(r.place);
    free_record(b);
  }
  return true;
}

void block_pool::evict(block_id b) noexcept {
  assert(is_live(b) && is_cached(b));
  --cached_[ordinal(tier(b))];
  vacate(records_[b].place);
  free_record(b);
}

std::optional<std::vector<placement>> block_pool::relocate(std::span<const block_id> blocks,
                                                           precision to) {
  ++layout_version_;
  std::vector<placement> old(blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const block_id b = blocks[i];
    old[i] = {records_[b].place, tier(b)};
    if (is_cached(b)) --cached_[ordinal(old[i].tier)];
    vacate(old[i].place);
  }
  std::size_t placed = 0;
  for (; placed < blocks.size(); ++placed) {
    const std::uint32_t place = find_place(to);
    if (place == no_place) break;
    occupy(place, to);
    records_[blocks[placed]].place = place;
  }
  const bool ok = placed == blocks.size();
  if (!ok) {  // undo in reverse: the sets make the state identical to before
    for (std::size_t i = placed; i-- > 0;) vacate(records_[blocks[i]].place);
  }
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const block_id b = blocks[i];
    if (!ok) {
      occupy(old[i].place, old[i].tier);
      records_[b].place = old[i].place;
    }
    if (is_cached(b)) ++cached_[ordinal(tier(b))];
  }
  if (!ok) return std::nullopt;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    references_[ordinal(old[i].tier)] -= records_[blocks[i]].refs;
    references_[ordinal(to)] += records_[blocks[i]].refs;
  }
  return old;
}

block_info block_pool::info(block_id b) const noexcept {
  assert(is_live(b));
  const record& r = records_[b];
  return {frame_of(r.place), static_cast<std::uint8_t>(slot_of(r.place)), tier(b), r.owner,
          r.logical, r.fill, r.refs, r.refs == 0};
}

pool_usage block_pool::usage() const noexcept {
  pool_usage u;
  for (precision p : all_precisions) {
    const int t = ordinal(p);
    // Most runs use one or two levels: an empty tier's fields are the zeros they start as (the
    // engine asks for this every step).
    if (tier_frames_[t] == 0 && blocks_[t] == 0 && references_[t] == 0) continue;
    tier_usage& tier = u.tiers[t];
    tier.blocks = blocks_[t];
    tier.cached_blocks = cached_[t];
    tier.references = references_[t];
    tier.frames = tier_frames_[t];
    tier.payload_bytes = blocks_[t] * layouts_[t].payload_bytes;
    // The frames' bytes no block holds: empty slots, and the room under a slot that q3's five
    // leave (4 bytes of every 64).
    tier.slack_bytes = std::uint64_t{tier_frames_[t]} * frame_bytes_ - blocks_[t] * layouts_[t].payload_bytes;
    tier.scale_bytes = blocks_[t] * layouts_[t].scale_bytes;
    u.cached_bytes += cached_[t] * layouts_[t].total_bytes();
  }
  u.budget_bytes = budget_bytes();
  u.bytes_in_use = bytes_in_use();
  u.free_bytes = free_bytes();
  u.scale_bytes = scale_bytes_;
  u.frames = frame_count();
  u.used_frames = used_frames_;
  u.scale_reserved_frames = scale_reserved_frames_;
  u.free_frames = free_frames();
  return u;
}

void block_pool::snapshot(frame_map& into) const {
  into.block_size = config_.block_size;
  into.frame_bytes = frame_bytes_;
  into.scale_bytes = scale_bytes_;
  into.scale_reserved_frames = scale_reserved_frames_;
  into.frames.assign(frames_.size(), frame_info{});
  for (std::size_t f = 0; f < frames_.size(); ++f) {
    into.frames[f].tier = frames_[f].tier;
    into.frames[f].slot_count = static_cast<std::uint8_t>(slots_per_frame(frames_[f].tier));
  }
  for (std::size_t b = 0; b < records_.size(); ++b) {
    const record& r = records_[b];
    if (r.place == no_place) continue;
    into.frames[frame_of(r.place)].blocks[slot_of(r.place)] = {
        r.owner, r.logical, r.fill, r.refs, r.refs == 0, static_cast<block_id>(b)};
  }
}

frame_map block_pool::snapshot() const {
  frame_map map;
  snapshot(map);
  return map;
}

std::size_t block_pool::metadata_bytes() const noexcept {
  std::size_t bytes = sizeof(*this) + records_.capacity() * sizeof(record) +
                      frames_.capacity() * sizeof(frame_state) + free_set_.memory_bytes();
  for (const auto& set : open_set_) bytes += set.memory_bytes();
  return bytes;
}

}  // namespace kvscope
