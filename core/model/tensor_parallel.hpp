#pragma once
// How a model splits over `tp` GPUs by tensor parallelism, as vLLM splits it: attention heads and
// MLP columns evenly, KV heads evenly, or each KV head replicated when there are more GPUs than
// KV heads.
#include <cstdint>
#include <optional>
#include <string>

#include "model/model_config.hpp"

namespace kvscope {

// Why `model` cannot run at tensor parallelism `tp`, or nullopt: tp must be >= 1 and divide
// num_attention_heads, and KV heads must split evenly (tp divides them, or they divide tp).
std::optional<std::string> check_tensor_parallel(const model_config& model, std::uint32_t tp);

// Distinct KV shards among the tp GPUs: min(tp, num_key_value_heads). Each GPU keeps and reads
// 1/kv_shards of every token's KV; past that, KV heads are replicated, not split further.
// Precondition: check_tensor_parallel(model, tp) is nullopt.
std::uint64_t kv_shards(const model_config& model, std::uint32_t tp) noexcept;

}  // namespace kvscope
