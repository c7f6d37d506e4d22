#include "memory/index_set.hpp"

#include <bit>
#include <cassert>

namespace kvscope {

index_set::index_set(std::uint32_t capacity, bool full) : capacity_(capacity) {
  std::size_t bits = capacity;
  do {
    const std::size_t words = (bits + 63) / 64;
    std::vector<std::uint64_t> level(words, 0);
    if (full) {
      for (std::size_t w = 0; w < words; ++w) {
        const std::size_t in_word = bits - w * 64 < 64 ? bits - w * 64 : 64;
        level[w] = in_word == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << in_word) - 1;
      }
    }
    levels_.push_back(std::move(level));
    bits = words;
  } while (bits > 1);
  if (full) size_ = capacity;
}

bool index_set::contains(std::uint32_t i) const noexcept {
  assert(i < capacity_);
  return (levels_[0][i / 64] >> (i % 64)) & 1u;
}

void index_set::insert(std::uint32_t i) noexcept {
  assert(i < capacity_);
  if (contains(i)) return;
  ++size_;
  std::size_t index = i;
  for (auto& level : levels_) {
    std::uint64_t& word = level[index / 64];
    const bool was_empty = word == 0;
    word |= std::uint64_t{1} << (index % 64);
    if (!was_empty) break;
    index /= 64;
  }
}

void index_set::erase(std::uint32_t i) noexcept {
  assert(i < capacity_);
  if (!contains(i)) return;
  --size_;
  std::size_t index = i;
  for (auto& level : levels_) {
    std::uint64_t& word = level[index / 64];
    word &= ~(std::uint64_t{1} << (index % 64));
    if (word != 0) break;
    index /= 64;
  }
}

std::uint32_t index_set::first() const noexcept {
  assert(!empty());
  std::size_t index = 0;
  for (auto level = levels_.rbegin(); level != levels_.rend(); ++level) {
    index = index * 64 + static_cast<std::size_t>(std::countr_zero((*level)[index]));
  }
  return static_cast<std::uint32_t>(index);
}

std::size_t index_set::memory_bytes() const noexcept {
  std::size_t bytes = levels_.capacity() * sizeof(levels_[0]);
  for (const auto& level : levels_) bytes += level.capacity() * sizeof(std::uint64_t);
  return bytes;
}

}  // namespace kvscope
