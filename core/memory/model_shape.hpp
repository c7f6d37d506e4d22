#pragma once
// The KV-relevant shape of a model (docs/ARCHITECTURE.md, "Paged memory"), taken from its
// Hugging Face config (model/).
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "model/model_config.hpp"

namespace kvscope {

struct model_shape {
  std::uint32_t layers = 0;
  std::uint32_t kv_heads = 0;
  std::uint32_t head_dim = 0;

  // Values of one layer's K (or V) for one token: kv_heads x head_dim.
  std::uint64_t head_values() const noexcept { return std::uint64_t{kv_heads} * head_dim; }
  // Values one token keeps in the cache: K and V of every layer and head.
  // In 64 bits throughout: `2 * layers` in 32 would wrap for a hostile layer count.
  std::uint64_t values_per_token() const noexcept { return 2 * std::uint64_t{layers} * head_values(); }
  // Bytes one token keeps at fp16 (2 bytes a value): what a new token writes.
  std::uint64_t fp16_bytes_per_token() const noexcept { return values_per_token() * 2; }
  // Bytes of one fp16 block of `block_size` tokens: one frame of the block pool. Exact for any
  // shape a model file may give (model_config bounds it) and a block_size below 2^16.
  std::uint64_t frame_bytes(std::uint64_t block_size) const noexcept { return block_size * fp16_bytes_per_token(); }

  friend bool operator==(const model_shape&, const model_shape&) = default;
};

struct model_preset {
  std::string_view name;
  model_shape shape;
};

// The KV shape of each built-in model (model/builtin_models.hpp), in its order: tiny (2, 2, 64),
// llama3-8b (32, 8, 128), llama3-70b (80, 8, 128), qwen3-8b (36, 8, 128), ...
std::span<const model_preset> model_presets() noexcept;

// The KV shape of a model config.
model_shape shape_of(const model_config& config) noexcept;

// The shape of a built-in model or of a config.json file (model/builtin_models.hpp's
// resolve_model); nullopt when it names neither (resolve_model says why).
std::optional<model_shape> find_model_shape(std::string_view name_or_path);

}  // namespace kvscope
