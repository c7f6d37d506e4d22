#pragma once
// Small builders shared by the memory tests.
#include <cstdint>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "memory/paged_cache.hpp"
#include "memory/quality.hpp"

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

// One sequence of 96 synthetic tokens (seed 8, stream 11) written token by token into six
// blocks of `level`: the tile formats (q4o, q3) quantize a key tile again at each write.
struct written_sequence {
  synthetic_kv data{.seed = 8};
  paged_cache cache;
  sequence_id seq = no_sequence;

  written_sequence(const paged_cache_config& config, precision level) : cache(config) {
    seq = cache.create_sequence();
    EXPECT_TRUE(cache.append_blocks(seq, level, 6));
    EXPECT_TRUE(write_synthetic(cache, data, seq, 11, 0, 96));
  }
  double attention_error() const { return measure_attention_error(cache, data, {seq, 11})->relative(); }
  // Layer 1's keys read back position by position through read(), or block by block through
  // read_block(): the two must agree.
  std::vector<float> keys(bool by_block) {
    const std::size_t hv = cache.shape().head_values();
    std::vector<float> k(16 * hv), v(16 * hv), out;
    for (std::uint32_t b = 0; by_block && b < 6; ++b) {
      EXPECT_EQ(*cache.read_block(seq, b, 1, k, v), 16u);
      out.insert(out.end(), k.begin(), k.end());
    }
    for (std::uint32_t pos = 0; !by_block && pos < 96; ++pos) {
      EXPECT_TRUE(cache.read(seq, 1, pos, std::span<float>(k).first(hv), std::span<float>(v).first(hv)));
      out.insert(out.end(), k.begin(), k.begin() + static_cast<std::ptrdiff_t>(hv));
    }
    return out;
  }
};

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
