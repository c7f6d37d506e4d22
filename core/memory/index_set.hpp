#pragma once
// A set of indices in [0, capacity) with O(log64 n) insert, erase and smallest member: a bitmap
// plus summary levels (bit w of level k+1 says word w of level k is non-zero). The pool keeps its
// free and half-free frames in these, so the lowest frame is always handed out first: allocation
// order depends only on the set, which makes rollback exact and results reproducible.
// All levels live in one array and the operations are inline: the pool calls them for every
// block it allocates or frees.
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kvscope {

class index_set {
 public:
  // An empty set, or with every index present when `full`.
  explicit index_set(std::uint32_t capacity = 0, bool full = false);

  std::uint32_t capacity() const noexcept { return capacity_; }
  std::uint32_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  bool contains(std::uint32_t i) const noexcept {
    assert(i < capacity_);
    return (words_[i / 64] >> (i % 64)) & 1u;
  }
  // Adds i (no-op when present). Precondition: i < capacity().
  void insert(std::uint32_t i) noexcept {
    if (contains(i)) return;
    ++size_;
    std::size_t index = i;
    for (std::uint32_t l = 0; l < levels_; ++l) {
      std::uint64_t& word = words_[begin_[l] + index / 64];
      const bool was_empty = word == 0;
      word |= std::uint64_t{1} << (index % 64);
      if (!was_empty) break;
      index /= 64;
    }
  }
  // Removes i (no-op when absent). Precondition: i < capacity().
  void erase(std::uint32_t i) noexcept {
    if (!contains(i)) return;
    --size_;
    std::size_t index = i;
    for (std::uint32_t l = 0; l < levels_; ++l) {
      std::uint64_t& word = words_[begin_[l] + index / 64];
      word &= ~(std::uint64_t{1} << (index % 64));
      if (word != 0) break;
      index /= 64;
    }
  }
  // The smallest member. Precondition: !empty().
  std::uint32_t first() const noexcept {
    assert(!empty());
    std::size_t index = 0;
    for (std::uint32_t l = levels_; l-- > 0;) {
      index = index * 64 + static_cast<std::size_t>(std::countr_zero(words_[begin_[l] + index]));
    }
    return static_cast<std::uint32_t>(index);
  }

  // Heap bytes held (for the pool's metadata figure).
  std::size_t memory_bytes() const noexcept;

 private:
  // Level l is words_[begin_[l] ...]; level 0 holds the members, the top level is one word.
  // 2^32 indices need 6 levels.
  std::vector<std::uint64_t> words_;
  std::array<std::uint32_t, 6> begin_{};
  std::uint32_t levels_ = 0;
  std::uint32_t capacity_ = 0;
  std::uint32_t size_ = 0;
};

}  // namespace kvscope
