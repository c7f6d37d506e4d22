#pragma once
// A transformer's shape as its Hugging Face config.json states it, and the counts that follow
// from it: parameters, weight bytes, KV bytes per token.
//
// Covered: Llama-style decoders (Llama, Mistral, Qwen2/3, Mixtral, Qwen3-MoE): grouped-query
// attention, a SwiGLU MLP (gate, up, down), RMSNorm. Unknown keys are ignored, as config.json files
// carry many that do not change the shape.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "util/expected.hpp"

namespace kvscope {

struct model_config {
  std::string name;        // a built-in's short name, or the file it came from
  std::string model_type;  // "llama", "qwen3", ... as written; empty when absent
  std::uint64_t num_hidden_layers = 0;
  std::uint64_t num_attention_heads = 0;
  std::uint64_t num_key_value_heads = 0;  // defaults to num_attention_heads
  std::uint64_t head_dim = 0;             // defaults to hidden_size / num_attention_heads
  std::uint64_t hidden_size = 0;
  std::uint64_t intermediate_size = 0;
  std::uint64_t vocab_size = 0;
  std::uint64_t max_position_embeddings = 0;  // 0 when the file does not say
  bool tie_word_embeddings = false;           // lm_head shares the embedding matrix
  bool qkv_bias = false;    // q/k/v projections carry biases (attention_bias, or model_type qwen2*)
  bool o_bias = false;      // the output projection carries one too (attention_bias)
  bool mlp_bias = false;    // gate/up/down carry biases (mlp_bias)
  bool qk_norm = false;     // per-head RMSNorm on q and k (model_type qwen3*)
  std::string torch_dtype;  // "bfloat16", "float16" or "float32"
  std::uint32_t dtype_bytes = 2;  // bytes of one weight in torch_dtype

  // Mixture of experts; num_experts == 0 is a dense model.
  std::uint64_t num_experts = 0;  // num_local_experts (Mixtral) or num_experts (Qwen)
  std::uint64_t num_experts_per_tok = 0;
  std::uint64_t moe_intermediate_size = 0;  // one expert's MLP width; intermediate_size if absent
  std::uint64_t num_moe_layers = 0;         // layers whose MLP is the experts (Qwen's
                                            // mlp_only_layers and decoder_sparse_step say which)

  bool is_moe() const noexcept { return num_experts > 0; }

  friend bool operator==(const model_config&, const model_config&) = default;
};

// Parses a config.json text. `source` names it in errors, which are one line naming the field:
// "llama.json: field 'num_key_value_heads': expected a positive integer, got string \"8\"".
// Missing required fields, wrong types, inconsistent heads, unknown dtypes and counts that do not
// fit in 64 bits are errors. The name is `source`'s file name without ".json".
expected<model_config, std::string> parse_model_config(std::string_view text,
                                                       std::string_view source);

// Reads a config.json file; a file called config.json is named after its folder
// (".../Llama-3.1-8B/config.json" is "Llama-3.1-8B").
expected<model_config, std::string> read_model_config(const std::filesystem::path& path);

// Every weight: embeddings, per layer attention q/k/v/o (and biases, q/k norms), the MLP (all
// experts and the router for MoE), two RMSNorms, the final norm, and lm_head unless tied.
// Precondition for this and the counts below: `config` came from parse_model_config (or passes
// it); otherwise a count that overflows reads as the largest uint64.
std::uint64_t parameter_count(const model_config& config) noexcept;

// Parameters one token goes through: as parameter_count, but only num_experts_per_tok experts of
// each MoE layer. Equal to parameter_count for a dense model.
std::uint64_t active_parameter_count(const model_config& config) noexcept;

// Parameters of one expert in one layer (gate, up, down); 0 for a dense model.
std::uint64_t expert_parameter_count(const model_config& config) noexcept;

// Bytes of all weights at torch_dtype: parameter_count x dtype_bytes.
std::uint64_t weight_bytes(const model_config& config) noexcept;

// KV values one token keeps: K and V of every layer and KV head, 2 x layers x kv_heads x head_dim.
std::uint64_t kv_values_per_token(const model_config& config) noexcept;

// Bytes one token keeps in an fp16 KV cache: kv_values_per_token x 2.
std::uint64_t kv_bytes_per_token(const model_config& config) noexcept;

}  // namespace kvscope
