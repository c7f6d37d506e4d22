#include "memory/error_factors.hpp"

#include <cassert>

#include "memory/paged_cache.hpp"
#include "memory/quality.hpp"

namespace kvscope {

std::array<double, kv_level_count> attention_error_factors_for(q4_format format, std::uint32_t channels) noexcept {
  assert(channels <= q4o_max_channels);
  std::array<double, kv_level_count> factors = attention_error_factors;
  if (format == q4_format::q4o) factors[ordinal(precision::q4)] = q4o_attention_error_factors[channels];
  return factors;
}

std::array<double, kv_level_count> measure_attention_error_factors(const model_shape& shape,
                                                      std::uint32_t context_tokens,
                                                      std::uint32_t sequences, std::uint64_t seed) {
  constexpr std::uint32_t block_size = 16;
  const std::uint32_t blocks = (context_tokens + block_size - 1) / block_size;
  std::array<double, kv_level_count> factors{};
  for (precision p : all_precisions) {
    paged_cache_config config;
    config.pool.shape = shape;
    config.pool.block_size = block_size;
    // Room for every sequence at fp16, plus the scales' side table and a margin.
    config.pool.budget_bytes =
        (std::uint64_t{blocks} * sequences + 8) * shape.frame_bytes(block_size) * 11 / 10;
    config.pool.mode = payload_mode::data;
    config.tail_tokens = 0;
    paged_cache cache(config);
    const synthetic_kv data{.seed = seed};
    error_sum pooled;
    for (std::uint32_t i = 0; i < sequences; ++i) {
      const sequence_id s = cache.create_sequence();
      assert_ok(cache.ensure_capacity(s, blocks * block_size));
      const std::uint64_t stream = 1000 + i;
      assert_ok(write_synthetic(cache, data, s, stream, 0, context_tokens));
      cache.migrate(p, blocks);
      pooled += measure_attention_error(cache, data, {s, stream}).value();
    }
    factors[ordinal(p)] = pooled.relative();
  }
  return factors;
}

}  // namespace kvscope
