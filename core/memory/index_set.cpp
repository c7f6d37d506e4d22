#include "memory/index_set.hpp"

namespace kvscope {

index_set::index_set(std::uint32_t capacity, bool full) : capacity_(capacity) {
  std::size_t bits = capacity;
  do {
    const std::size_t words = (bits + 63) / 64;
    assert(levels_ < begin_.size());
    begin_[levels_++] = static_cast<std::uint32_t>(words_.size());
    for (std::size_t w = 0; w < words; ++w) {
      const std::size_t in_word = bits - w * 64 < 64 ? bits - w * 64 : 64;
      std::uint64_t word = 0;
      if (full) word = in_word == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << in_word) - 1;
      words_.push_back(word);
    }
    end_[levels_ - 1] = static_cast<std::uint32_t>(words_.size());
    bits = words;
  } while (bits > 1);
  if (full) size_ = capacity;
  min_ = size_ > 0 ? 0 : capacity;
}

std::size_t index_set::memory_bytes() const noexcept {
  return words_.capacity() * sizeof(std::uint64_t);
}

}  // namespace kvscope
