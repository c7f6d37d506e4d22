#pragma once
// A set of indices in [0, capacity) with O(log64 n) insert, erase and smallest member: a bitmap
// plus summary levels (bit w of level k+1 says word w of level k is non-zero). The pool keeps its
// free and half-free frames in these, so the lowest frame is always handed out first: allocation
// order depends only on the set, which makes rollback exact and results reproducible.
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

  bool contains(std::uint32_t i) const noexcept;
  // Adds i (no-op when present). Precondition: i < capacity().
  void insert(std::uint32_t i) noexcept;
  // Removes i (no-op when absent). Precondition: i < capacity().
  void erase(std::uint32_t i) noexcept;
  // The smallest member. Precondition: !empty().
  std::uint32_t first() const noexcept;

  // Heap bytes held (for the pool's metadata figure).
  std::size_t memory_bytes() const noexcept;

 private:
  std::vector<std::vector<std::uint64_t>> levels_;  // levels_[0] holds the members
  std::uint32_t capacity_ = 0;
  std::uint32_t size_ = 0;
};

}  // namespace kvscope
