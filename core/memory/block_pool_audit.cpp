// block_pool::audit: recomputes every counter and set from the block records and compares.
#include <sstream>

#include "memory/block_pool.hpp"

namespace kvscope {

std::string block_pool::audit() const {
  std::ostringstream why;
  std::vector<std::uint8_t> seen(frames_.size(), 0);
  std::array<std::uint64_t, kv_level_count> blocks{};
  std::array<std::uint64_t, kv_level_count> cached{};
  std::array<std::uint64_t, kv_level_count> references{};
  std::uint64_t scale = 0;
  std::size_t live = 0;
  for (std::size_t b = 0; b < records_.size(); ++b) {
    const record& r = records_[b];
    if (r.place == no_place) continue;
    ++live;
    const std::uint32_t f = frame_of(r.place);
    const std::uint32_t s = slot_of(r.place);
    if (f >= frames_.size()) return (why << "block " << b << ": frame out of range", why.str());
    const frame_state& frame = frames_[f];
    if (s >= slots_per_frame(frame.tier) || ((frame.used >> s) & 1u) == 0) {
      return (why << "block " << b << ": frame " << f << " slot " << s << " is not live", why.str());
    }
    if ((seen[f] >> s) & 1u) {
      return (why << "frame " << f << " slot " << s << " handed out twice", why.str());
    }
    seen[f] = static_cast<std::uint8_t>(seen[f] | (1u << s));
    const int t = ordinal(frame.tier);
    ++blocks[t];
    if (r.refs == 0) ++cached[t];
    references[t] += r.refs;
    scale += layouts_[t].scale_bytes;
  }
  std::size_t unused = 0;
  for (block_id b = free_records_; b != no_block; b = static_cast<block_id>(records_[b].logical)) {
    if (b >= records_.size() || records_[b].place != no_place || ++unused > records_.size()) {
      return "unused-record list is broken";
    }
  }
  if (live + unused != records_.size()) return "records neither live nor on the unused list";

  std::uint32_t used = 0;
  std::array<std::uint32_t, kv_level_count> tier_frames{};
  for (std::uint32_t f = 0; f < frames_.size(); ++f) {
    const frame_state& frame = frames_[f];
    const int t = ordinal(frame.tier);
    if (seen[f] != frame.used) return (why << "frame " << f << ": slot mask disagrees", why.str());
    const bool is_free = frame.used == 0;
    if (free_set_.contains(f) != is_free) {
      return (why << "frame " << f << ": free set disagrees", why.str());
    }
    if (is_free && frame.tier != precision::fp16) return "free frame keeps a split";
    for (precision p : all_precisions) {
      const bool open = !is_free && p == frame.tier && slots_per_frame(p) > 1 &&
                        frame.used != (1u << slots_per_frame(p)) - 1u;
      if (open_set_[ordinal(p)].contains(f) != open) {
        return (why << "frame " << f << ": open set of " << tag(p) << " disagrees", why.str());
      }
    }
    if (!is_free) {
      ++used;
      ++tier_frames[t];
    }
  }
  if (used != used_frames_ || tier_frames != tier_frames_) return "frame counters disagree";
  if (blocks != blocks_ || cached != cached_) return "block counters disagree";
  if (references != references_) return "reference counters disagree";
  if (scale != scale_bytes_) return "scale bytes disagree";
  if (scale_reserved_frames_ != reserve_for(scale_bytes_)) return "reserved scale frames disagree";
  if (used_frames_ + reserve_for(scale_bytes_) > frame_count()) return "scales overrun the budget";
  const pool_usage u = usage();
  std::uint64_t total = u.scale_bytes + u.free_bytes;
  for (const auto& tier : u.tiers) total += tier.frame_bytes();
  if (total != u.budget_bytes || u.bytes_in_use + u.free_bytes != u.budget_bytes) {
    return "bytes in use + free != budget";
  }
  return {};
}

}  // namespace kvscope
