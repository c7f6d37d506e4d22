#pragma once
// Content hash → block id, the prefix cache's index. Open addressing with linear probing in one
// flat array (no node per entry, no division): under churn — a full cache evicts and registers
// blocks every step — std::unordered_map's node hops and modulo were a quarter of a whole
// `simulate` run on the real traces (perf).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "memory/frame_map.hpp"

namespace kvscope {

class block_index {
 public:
  // The block registered under `key`, or no_block.
  block_id find(std::uint64_t key) const noexcept;
  // Adds key → value; false (nothing changes) when `key` is present. Precondition: value != no_block.
  bool insert(std::uint64_t key, block_id value);
  // Removes `key`; false when it was absent.
  bool erase(std::uint64_t key) noexcept;

  std::size_t size() const noexcept { return size_; }
  void clear() noexcept;

 private:
  struct slot {
    std::uint64_t key = 0;
    block_id value = no_block;  // no_block: empty
  };
  std::size_t home(std::uint64_t key) const noexcept {
    // Fibonacci hashing: the top bits of a multiply, so keys that share low bits spread too.
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void grow();

  std::vector<slot> slots_;  // a power of two, at most half full
  std::size_t size_ = 0;
  unsigned shift_ = 64;
};

}  // namespace kvscope
