#pragma once
// Real K/V tensors, read from a safetensors file, to calibrate the per-level attention error
// factors on a model's own keys and values instead of kvscope's synthetic ones
// (`kvscope-cli bench quality --kv-sample FILE.safetensors`).
//
// The file holds a key tensor ("k", "key" or "keys") and a value tensor ("v", "value" or
// "values"), F32, F16 or BF16, shaped [tokens, heads, head_dim] or [layers, tokens, heads,
// head_dim] (every layer's heads count as heads), head_dim a multiple of 32; optionally query
// vectors ("q", "query" or "queries") shaped [queries, heads, head_dim] (or with layers first).
// Without queries, the keys of the last 16 tokens stand in for them.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "quant/level.hpp"
#include "quant/q3.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct kv_sample {
  std::uint32_t tokens = 0, heads = 0, head_dim = 0, queries = 0;
  std::vector<float> k, v;  // [token][head][dim]
  std::vector<float> q;     // [query][head][dim]
};

// Parses a safetensors file's bytes; errors name the source and the tensor or field.
expected<kv_sample, std::string> parse_kv_sample(std::string_view bytes, std::string_view source);
expected<kv_sample, std::string> read_kv_sample(const std::filesystem::path& path);

// The relative L2 error of decode attention, per level (by ordinal), with every K/V value stored
// at that level: softmax(q k^T / sqrt(d)) v on the dequantized values vs on the originals. q3's as
// q3_attention_error_of with the default channels (NaN beyond its limits).
std::array<double, kv_level_count> attention_error_factors_of(const kv_sample& sample);

// The same with q4 stored as q4o (quant/q4o.hpp): keys in tiles of `block_size` tokens of one
// head with `channels` outlier channels at int8, values at q4. NaN when the head_dim is beyond
// q4o's limit (256) or channels beyond its 16.
double q4o_attention_error_of(const kv_sample& sample, std::uint32_t channels,
                              std::uint32_t block_size = 16);

// The same stored as q3 (quant/q3.hpp): keys and values in tiles of `block_size` tokens of one
// head, the keys with `channels` outlier channels at int8. NaN beyond q3's limits (as q4o's).
double q3_attention_error_of(const kv_sample& sample, std::uint32_t channels,
                             q3_codebook codebook = q3_codebook::lloyd_max, std::uint32_t block_size = 16);

}  // namespace kvscope
