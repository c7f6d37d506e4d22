#pragma once
// Small builders shared by the memory tests.
#include <cstdint>

#include "memory/paged_cache.hpp"

namespace kvscope::test {

inline constexpr model_shape tiny_shape{2, 2, 64};

// Bytes of one frame (fp16 block) of `shape` with `block_size` tokens.
inline std::uint64_t frame_bytes_of(const model_shape& shape, std::uint32_t block_size) {
  return std::uint64_t{block_size} * shape.values_per_token() * 2;
}

inline block_pool_config pool_config(std::uint32_t frames, payload_mode mode = payload_mode::data,
                                     std::uint32_t block_size = 16,
                                     const model_shape& shape = tiny_shape) {
  return {shape, block_size, frames * frame_bytes_of(shape, block_size), mode, false};
}

inline paged_cache_config cache_config(std::uint32_t frames, payload_mode mode = payload_mode::data,
                                       std::uint32_t block_size = 16, std::uint32_t tail = 32,
                                       std::uint32_t window = 0) {
  return {pool_config(frames, mode, block_size), tail, window};
}

}  // namespace kvscope::test
