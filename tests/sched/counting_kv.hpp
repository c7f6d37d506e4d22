#pragma once
// A test double for kv_cache_manager: whole fp16 blocks counted per sequence, no tiers, no
// prefix cache. Enough to pin the scheduler's decisions independently of the paged pool.
#include <map>

#include "sched/kv_cache_manager.hpp"

namespace kvscope::test {

class counting_kv final : public kv_cache_manager {
 public:
  counting_kv(std::uint32_t frames, std::uint32_t block_size) : frames_(frames), block_(block_size) {}

  std::uint32_t begin_sequence(sequence_id seq, const request&, std::uint32_t) override {
    blocks_[seq] = 0;
    return 0;
  }
  bool allocate_slots(sequence_id seq, std::uint32_t total_tokens) override {
    const std::uint32_t need = (total_tokens + block_ - 1) / block_;
    auto& have = blocks_.at(seq);
    if (need > have && need - have > free_frames()) return false;
    if (need > have) {
      used_ += need - have;
      have = need;
    }
    return true;
  }
  void end_sequence(sequence_id seq) override {
    used_ -= blocks_.at(seq);
    blocks_.erase(seq);
  }
  bool make_room_for(std::uint32_t tokens, std::uint32_t reserve, eviction) override {
    return (tokens + block_ - 1) / block_ + reserve <= free_frames();
  }
  bool could_ever_fit(std::uint32_t tokens, std::uint32_t reserve) const override {
    return (tokens + block_ - 1) / block_ + reserve <= frames_;
  }
  std::uint32_t total_frames() const override { return frames_; }

  std::uint32_t free_frames() const { return frames_ - used_; }
  std::size_t live_sequences() const { return blocks_.size(); }

 private:
  std::uint32_t frames_;
  std::uint32_t block_;
  std::uint32_t used_ = 0;
  std::map<sequence_id, std::uint32_t> blocks_;
};

}  // namespace kvscope::test
