#pragma once
// Synthetic K/V data as a pure function of (seed, stream, position, layer, head, channel), so the
// original of anything in the cache can be regenerated to measure error without keeping a copy
// (docs/ARCHITECTURE.md, "Paged memory"). Counter-based: splitmix64 hashes of the coordinates, four 16-bit uniforms per
// hash summed into an approximately normal value (mean 0, variance 1, tails cut at ~3.5 sigma).
// Keys have `outliers_per_head` channels per (layer, head) scaled by `outlier_scale`, as real keys
// do; values and queries do not. `stream` names the data of one sequence (e.g. its request id).
#include <cstdint>
#include <span>

#include "memory/model_shape.hpp"

namespace kvscope {

enum class kv_part : std::uint8_t { key, value, query };

struct synthetic_kv {
  std::uint64_t seed = 0;
  float outlier_scale = 10.0f;
  std::uint32_t outliers_per_head = 4;

  // One value. Precondition: channel < head_dim.
  float at(kv_part part, std::uint64_t stream, std::uint32_t pos, std::uint32_t layer,
           std::uint32_t head, std::uint32_t channel, std::uint32_t head_dim) const noexcept;

  // True when `channel` of (layer, head) is a key outlier channel for head_dim `head_dim`.
  bool is_outlier(std::uint32_t layer, std::uint32_t head, std::uint32_t channel,
                  std::uint32_t head_dim) const noexcept;

  // The kv_heads x head_dim values of one (part, stream, pos, layer), head-major, into `out`.
  // Precondition: out.size() == shape.head_values(). Same values as at().
  void fill(kv_part part, const model_shape& shape, std::uint64_t stream, std::uint32_t pos,
            std::uint32_t layer, std::span<float> out) const noexcept;
};

}  // namespace kvscope
