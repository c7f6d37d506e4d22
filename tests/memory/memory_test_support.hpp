#pragma once
// Small builders shared by the memory tests.
#include <cstdint>
#include <utility>

#include <gtest/gtest.h>

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

// Two sequences of `a_tokens` and `b_tokens` tokens (advanced, no data) whose first block is the
// same block (a's, shared by b). Returns {a, b}.
inline std::pair<sequence_id, sequence_id> two_sharing_first_block(paged_cache& cache, std::uint32_t a_tokens,
                                                                   std::uint32_t b_tokens) {
  const sequence_id a = cache.create_sequence();
  EXPECT_TRUE(cache.ensure_capacity(a, a_tokens));
  EXPECT_TRUE(cache.advance(a, a_tokens));
  const sequence_id b = cache.create_sequence();
  EXPECT_TRUE(cache.append_shared(b, (*cache.block_table(a))[0]));
  EXPECT_TRUE(cache.ensure_capacity(b, b_tokens));
  EXPECT_TRUE(cache.advance(b, b_tokens));
  return {a, b};
}

}  // namespace kvscope::test
