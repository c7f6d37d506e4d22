#pragma once
// A set of indices in [0, capacity) with O(log64 n) insert, erase and successor, and the smallest
// member in O(1): a bitmap plus summary levels (bit w of level k+1 says word w of level k is
// non-zero), and the minimum kept up to date (erasing it looks for its successor, which in a
// dense set is the same word). The pool keeps its
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
    if (i < min_) min_ = i;
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
    std::uint64_t& word = words_[begin_[0] + i / 64];
    word &= ~(std::uint64_t{1} << (i % 64));
    if (word == 0) clear_summary(i / 64);
    if (i == min_) min_ = next_from(i + 1);
  }
  // Removes the `n` smallest members, calling take(i) for each in ascending order: what n rounds
  // of first() and erase() do, a word at a time. Precondition: n <= size().
  template <class Take>
  void take_smallest(std::uint32_t n, Take&& take) {
    assert(n <= size_);
    if (n == 0) return;
    size_ -= n;
    std::uint64_t w = min_ / 64;  // a word of level 0
    std::uint32_t last = 0;
    for (;;) {
      std::uint64_t& word = words_[begin_[0] + w];
      while (word != 0 && n > 0) {
        last = static_cast<std::uint32_t>(w * 64 + static_cast<std::uint64_t>(std::countr_zero(word)));
        word &= word - 1;
        take(last);
        --n;
      }
      if (word == 0) clear_summary(w);
      if (n == 0) break;
      w = next_from((w + 1) * 64) / 64;
    }
    min_ = size_ > 0 ? next_from(std::uint64_t{last} + 1) : capacity_;
  }
  // The smallest member. Precondition: !empty().
  std::uint32_t first() const noexcept {
    assert(!empty());
    return min_;
  }
  // The smallest member >= i, or capacity() when there is none.
  std::uint32_t next_from(std::uint64_t i) const noexcept {
    // Climb while the rest of the word at this level is empty, then descend to the first member.
    std::uint64_t index = i;
    std::uint32_t l = 0;
    for (; l < levels_; ++l) {
      const std::uint64_t w = index / 64;
      if (w >= end_[l] - begin_[l]) return capacity_;
      const std::uint64_t word = words_[begin_[l] + w] & (~std::uint64_t{0} << (index % 64));
      if (word != 0) {
        index = w * 64 + static_cast<std::uint64_t>(std::countr_zero(word));
        break;
      }
      index = w + 1;
    }
    if (l == levels_) return capacity_;
    while (l-- > 0) {
      index = index * 64 + static_cast<std::uint64_t>(std::countr_zero(words_[begin_[l] + index]));
    }
    return static_cast<std::uint32_t>(index);
  }

  // Heap bytes held (for the pool's metadata figure).
  std::size_t memory_bytes() const noexcept;

 private:
  // Level 0's word w became empty: clears its bit in the levels above, as far as that empties.
  void clear_summary(std::uint64_t w) noexcept {
    std::uint64_t index = w;
    for (std::uint32_t l = 1; l < levels_; ++l) {
      std::uint64_t& word = words_[begin_[l] + index / 64];
      word &= ~(std::uint64_t{1} << (index % 64));
      if (word != 0) break;
      index /= 64;
    }
  }

  // Level l is words_[begin_[l] ...]; level 0 holds the members, the top level is one word.
  // 2^32 indices need 6 levels; end_[l] is one past level l's last word.
  std::vector<std::uint64_t> words_;
  std::array<std::uint32_t, 6> begin_{};
  std::array<std::uint32_t, 6> end_{};
  std::uint32_t levels_ = 0;
  std::uint32_t capacity_ = 0;
  std::uint32_t size_ = 0;
  std::uint32_t min_ = 0;  // the smallest member; capacity_ when empty
};

}  // namespace kvscope
