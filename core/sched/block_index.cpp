#include "sched/block_index.hpp"

#include <cassert>
#include <utility>

namespace kvscope {

block_id block_index::find(std::uint64_t key) const noexcept {
  if (slots_.empty()) return no_block;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = home(key);; i = (i + 1) & mask) {
    const slot& s = slots_[i];
    if (s.value == no_block) return no_block;
    if (s.key == key) return s.value;
  }
}

bool block_index::insert(std::uint64_t key, block_id value) {
  assert(value != no_block);
  if (2 * (size_ + 1) > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = home(key);; i = (i + 1) & mask) {
    slot& s = slots_[i];
    if (s.value == no_block) {
      s = {key, value};
      ++size_;
      return true;
    }
    if (s.key == key) return false;
  }
}

bool block_index::erase(std::uint64_t key) noexcept {
  if (slots_.empty()) return false;
  const std::size_t mask = slots_.size() - 1;
  std::size_t hole = home(key);
  for (;; hole = (hole + 1) & mask) {
    if (slots_[hole].value == no_block) return false;
    if (slots_[hole].key == key) break;
  }
  // Backward-shift deletion: pull later entries of the run into the hole when their home is
  // not between the hole and themselves, so lookups never need tombstones.
  for (std::size_t j = (hole + 1) & mask; slots_[j].value != no_block; j = (j + 1) & mask) {
    const std::size_t h = home(slots_[j].key);
    const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
    if (stays) continue;
    slots_[hole] = slots_[j];
    hole = j;
  }
  slots_[hole] = slot{};
  --size_;
  return true;
}

void block_index::clear() noexcept {
  slots_.clear();
  size_ = 0;
  shift_ = 64;
}

void block_index::grow() {
  const std::size_t capacity = slots_.empty() ? 16 : slots_.size() * 2;
  std::vector<slot> old = std::exchange(slots_, std::vector<slot>(capacity));
  shift_ = 64;
  for (std::size_t n = slots_.size(); n > 1; n >>= 1) --shift_;
  size_ = 0;
  for (const slot& s : old) {
    if (s.value != no_block) insert(s.key, s.value);
  }
}

}  // namespace kvscope
