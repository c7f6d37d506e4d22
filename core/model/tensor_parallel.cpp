#include "model/tensor_parallel.hpp"

#include <algorithm>

namespace kvscope {

std::optional<std::string> check_tensor_parallel(const model_config& model, std::uint32_t tp) {
  const auto heads = model.num_attention_heads;
  const auto kv_heads = model.num_key_value_heads;
  if (tp == 0) return "tensor parallelism must be at least 1";
  if (heads == 0 || kv_heads == 0) return model.name + ": no attention heads";
  if (heads % tp != 0) {
    return "tp " + std::to_string(tp) + " does not divide " + model.name +
           "'s num_attention_heads (" + std::to_string(heads) + ")";
  }
  if (tp <= kv_heads ? kv_heads % tp != 0 : tp % kv_heads != 0) {
    return "tp " + std::to_string(tp) + " cannot split " + model.name + "'s " +
           std::to_string(kv_heads) + " KV heads evenly";
  }
  return std::nullopt;
}

std::uint64_t kv_shards(const model_config& model, std::uint32_t tp) noexcept {
  return std::min<std::uint64_t>(tp, model.num_key_value_heads);
}

}  // namespace kvscope
