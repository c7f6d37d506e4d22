#include "model/model_config.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include "model/checked_u64.hpp"
#include "util/json_fields.hpp"

namespace kvscope {
namespace {

using detail::checked_u64;

// Upper bounds on a config's counts, each far above any published model (Llama 3.1 405B: 126
// layers, 128 heads, hidden 16,384, intermediate 53,248; Gemma: a 256,000-token vocabulary;
// DeepSeek-V3: 256 experts; Llama 4 Scout: a 10M-token context) and low enough that every size
// derived from them fits in 64 bits and the KV shape in 32 (memory/model_shape.hpp). A file
// beyond them is a typo or hostile, not a model: refused with the field and the range.
constexpr std::uint64_t max_layers = 4096;
constexpr std::uint64_t max_heads = 4096;
constexpr std::uint64_t max_head_dim = 4096;
constexpr std::uint64_t max_hidden = std::uint64_t{1} << 20;
constexpr std::uint64_t max_mlp_width = std::uint64_t{1} << 22;
constexpr std::uint64_t max_vocab = std::uint64_t{1} << 24;
constexpr std::uint64_t max_experts = std::uint64_t{1} << 16;
constexpr std::uint64_t max_context = std::uint64_t{1} << 31;
constexpr std::uint64_t no_max = std::numeric_limits<std::uint64_t>::max();

// Reads fields of one config object; the first error wins and every later read is skipped, so
// a parse is a chain of `&&`.
class field_reader {
 public:
  field_reader(const nlohmann::json& doc, std::string_view source) : doc_(doc), source_(source) {}

  const std::string& error() const noexcept { return error_; }
  std::string_view source() const noexcept { return source_; }
  bool present(std::string_view field) const { return detail::find_field(doc_, field) != nullptr; }

  // Leaves `out` as it is when the field is absent and not required.
  bool integer(std::string_view field, std::uint64_t& out, bool required, std::uint64_t min,
               std::uint64_t max) {
    const auto* value = detail::find_field(doc_, field);
    if (!value) return !required || fail(field, "missing");
    return take(detail::read_integer(*value, source_, field, min, max), out);
  }
  bool boolean(std::string_view field, bool& out) {
    const auto* value = detail::find_field(doc_, field);
    return !value || take(detail::read_bool(*value, source_, field), out);
  }
  bool string(std::string_view field, std::string& out) {
    const auto* value = detail::find_field(doc_, field);
    return !value || take(detail::read_string(*value, source_, field), out);
  }
  // A list of layer indices below `layers` (Qwen's mlp_only_layers).
  bool layer_list(std::string_view field, std::uint64_t layers, std::vector<std::uint64_t>& out) {
    const auto* value = detail::find_field(doc_, field);
    if (!value) return true;
    if (!value->is_array()) return fail(field, "expected a list of layer indices");
    for (const auto& item : *value) {
      if (!item.is_number_unsigned() || item.get<std::uint64_t>() >= layers) {
        return fail(field, "expected layer indices in 0.." + std::to_string(layers - 1) + ", got " +
                               item.dump());
      }
      out.push_back(item.get<std::uint64_t>());
    }
    return true;
  }

  bool fail(std::string_view field, std::string_view what) {
    error_ = detail::field_error(source_, field, what);
    return false;
  }

 private:
  template <class T>
  bool take(expected<T, std::string> result, T& out) {
    if (!result) {
      error_ = result.error();
      return false;
    }
    out = std::move(*result);
    return true;
  }

  const nlohmann::json& doc_;
  std::string_view source_;
  std::string error_;
};

struct parameter_counts {
  checked_u64 total;
  checked_u64 active;
  checked_u64 expert;
};

// One place for the arithmetic, so the total, active and expert counts cannot drift apart.
parameter_counts count_parameters(const model_config& c) {
  const checked_u64 hidden = c.hidden_size;
  const checked_u64 q_width = checked_u64(c.num_attention_heads) * c.head_dim;
  const checked_u64 kv_width = checked_u64(c.num_key_value_heads) * c.head_dim;

  checked_u64 per_layer = hidden * q_width + hidden * kv_width * 2 + q_width * hidden;  // q,k,v,o
  if (c.qkv_bias) per_layer += q_width + kv_width * 2;
  if (c.o_bias) per_layer += hidden;
  if (c.qk_norm) per_layer += checked_u64(c.head_dim) * 2;
  per_layer += hidden * 2;  // RMSNorm before attention and before the MLP

  // SwiGLU: gate and up (hidden -> width), down (width -> hidden).
  const auto mlp = [&](std::uint64_t width) {
    checked_u64 m = hidden * width * 3;
    if (c.mlp_bias) m += checked_u64(width) * 2 + hidden;
    return m;
  };
  const std::uint64_t dense_layers = c.num_hidden_layers - c.num_moe_layers;
  const checked_u64 expert = c.is_moe() ? mlp(c.moe_intermediate_size) : checked_u64(0);
  const checked_u64 router = hidden * c.num_experts;

  checked_u64 shared = checked_u64(c.num_hidden_layers) * per_layer +
                       checked_u64(dense_layers) * mlp(c.intermediate_size);
  shared += checked_u64(c.vocab_size) * hidden;                              // embeddings
  if (!c.tie_word_embeddings) shared += checked_u64(c.vocab_size) * hidden;  // lm_head
  shared += hidden;                                                          // final norm

  const checked_u64 moe_layers = c.num_moe_layers;
  return {
      shared + moe_layers * (expert * c.num_experts + router),
      shared + moe_layers * (expert * c.num_experts_per_tok + router),
      expert,
  };
}

std::string file_stem(std::string_view source) {
  return std::filesystem::path(source).stem().string();
}

// What the fields do not say on their own: defaults, cross-field rules, the MoE layer count.
bool complete(model_config& c, field_reader& r, const std::vector<std::uint64_t>& mlp_only_layers,
              std::uint64_t decoder_sparse_step) {
  if (c.num_key_value_heads == 0) c.num_key_value_heads = c.num_attention_heads;
  if (c.num_attention_heads % c.num_key_value_heads != 0) {
    return r.fail("num_key_value_heads", "must divide num_attention_heads (" +
                                             std::to_string(c.num_attention_heads) + "), got " +
                                             std::to_string(c.num_key_value_heads));
  }
  if (c.head_dim == 0) {
    if (c.hidden_size % c.num_attention_heads != 0) {
      return r.fail("head_dim", "missing, and hidden_size " + std::to_string(c.hidden_size) +
                                    " is not a multiple of num_attention_heads " +
                                    std::to_string(c.num_attention_heads));
    }
    c.head_dim = c.hidden_size / c.num_attention_heads;
    if (c.head_dim > max_head_dim) {
      return r.fail("head_dim", "missing, and hidden_size / num_attention_heads = " +
                                    std::to_string(c.head_dim) + " is beyond " +
                                    std::to_string(max_head_dim));
    }
  }

  if (c.torch_dtype == "bfloat16" || c.torch_dtype == "float16") {
    c.dtype_bytes = 2;
  } else if (c.torch_dtype == "float32") {
    c.dtype_bytes = 4;
  } else {
    return r.fail("torch_dtype",
                  "unknown dtype '" + c.torch_dtype + "' (expected bfloat16, float16 or float32)");
  }

  if (c.is_moe()) {
    if (c.num_experts_per_tok == 0) return r.fail("num_experts_per_tok", "missing");
    if (c.num_experts_per_tok > c.num_experts) {
      return r.fail("num_experts_per_tok", "must be at most the number of experts (" +
                                               std::to_string(c.num_experts) + "), got " +
                                               std::to_string(c.num_experts_per_tok));
    }
    if (c.moe_intermediate_size == 0) c.moe_intermediate_size = c.intermediate_size;
    // Qwen-MoE's rule: layer i has experts unless listed in mlp_only_layers, and only every
    // decoder_sparse_step-th layer (1: all). Mixtral has neither key: every layer.
    for (std::uint64_t i = 0; i < c.num_hidden_layers; ++i) {
      const bool dense_only =
          std::find(mlp_only_layers.begin(), mlp_only_layers.end(), i) != mlp_only_layers.end();
      if (!dense_only && (i + 1) % decoder_sparse_step == 0) ++c.num_moe_layers;
    }
  } else {
    c.num_experts_per_tok = 0;
    c.moe_intermediate_size = 0;
  }

  const auto counts = count_parameters(c);
  const auto bytes = counts.total * c.dtype_bytes;
  const auto kv = checked_u64(c.num_hidden_layers) * c.num_key_value_heads * c.head_dim * 4;
  if (bytes.overflowed() || kv.overflowed()) {
    return r.fail("num_hidden_layers",
                  "the model's size does not fit in 64 bits (check num_hidden_layers, "
                  "hidden_size, intermediate_size, vocab_size and the head counts)");
  }
  return true;
}

}  // namespace

expected<model_config, std::string> parse_model_config(std::string_view text,
                                                       std::string_view source) {
  auto doc = detail::parse_json_object(text, source);
  if (!doc) return unexpected{std::move(doc).error()};

  model_config c;
  c.name = file_stem(source);
  field_reader r(*doc, source);
  bool attention_bias = false;
  std::uint64_t local_experts = 0;
  std::uint64_t decoder_sparse_step = 1;
  std::uint64_t shared_expert_width = 0;
  std::vector<std::uint64_t> mlp_only_layers;
  // Newer transformers write "dtype" where older ones wrote "torch_dtype".
  const std::string_view dtype_field =
      !r.present("torch_dtype") && r.present("dtype") ? "dtype" : "torch_dtype";
  const bool ok =
      r.string("model_type", c.model_type) &&
      r.integer("num_hidden_layers", c.num_hidden_layers, true, 1, max_layers) &&
      r.integer("num_attention_heads", c.num_attention_heads, true, 1, max_heads) &&
      r.integer("num_key_value_heads", c.num_key_value_heads, false, 1, max_heads) &&
      r.integer("hidden_size", c.hidden_size, true, 1, max_hidden) &&
      r.integer("head_dim", c.head_dim, false, 1, max_head_dim) &&
      r.integer("intermediate_size", c.intermediate_size, true, 1, max_mlp_width) &&
      r.integer("vocab_size", c.vocab_size, true, 1, max_vocab) &&
      r.integer("max_position_embeddings", c.max_position_embeddings, false, 1, max_context) &&
      r.boolean("tie_word_embeddings", c.tie_word_embeddings) &&
      r.boolean("attention_bias", attention_bias) && r.boolean("mlp_bias", c.mlp_bias) &&
      (r.present(dtype_field) ? r.string(dtype_field, c.torch_dtype)
                              : r.fail("torch_dtype", "missing")) &&
      r.integer("num_local_experts", local_experts, false, 0, max_experts) &&
      r.integer("num_experts", c.num_experts, false, 0, max_experts) &&
      r.integer("num_experts_per_tok", c.num_experts_per_tok, false, 0, max_experts) &&
      r.integer("moe_intermediate_size", c.moe_intermediate_size, false, 1, max_mlp_width) &&
      r.integer("decoder_sparse_step", decoder_sparse_step, false, 1, max_layers) &&
      r.layer_list("mlp_only_layers", c.num_hidden_layers, mlp_only_layers) &&
      r.integer("shared_expert_intermediate_size", shared_expert_width, false, 0, no_max) &&
      (shared_expert_width == 0 ||
       r.fail("shared_expert_intermediate_size", "shared experts (Qwen2-MoE) are not modelled"));
  if (!ok) return unexpected{r.error()};

  if (local_experts > 0) c.num_experts = local_experts;
  // Architecture facts config.json does not spell out: Qwen2 always biases q/k/v, Qwen3 always
  // normalizes q and k per head.
  const bool qwen2 = c.model_type == "qwen2" || c.model_type == "qwen2_moe";
  const bool qwen3 = c.model_type == "qwen3" || c.model_type == "qwen3_moe";
  c.qkv_bias = attention_bias || qwen2;
  c.o_bias = attention_bias;
  c.qk_norm = qwen3;
  if (!complete(c, r, mlp_only_layers, decoder_sparse_step)) return unexpected{r.error()};
  return c;
}

expected<model_config, std::string> read_model_config(const std::filesystem::path& path) {
  auto text = read_text_file(path);
  if (!text) return unexpected{std::move(text).error()};
  auto config = parse_model_config(*text, path.string());
  if (config && path.filename() == "config.json" && path.has_parent_path() &&
      !path.parent_path().filename().empty()) {
    config->name = path.parent_path().filename().string();
  }
  return config;
}

std::uint64_t parameter_count(const model_config& config) noexcept {
  return count_parameters(config).total.value_or_max();
}

std::uint64_t active_parameter_count(const model_config& config) noexcept {
  return count_parameters(config).active.value_or_max();
}

std::uint64_t expert_parameter_count(const model_config& config) noexcept {
  return count_parameters(config).expert.value_or_max();
}

std::uint64_t weight_bytes(const model_config& config) noexcept {
  return (count_parameters(config).total * config.dtype_bytes).value_or_max();
}

std::uint64_t kv_values_per_token(const model_config& config) noexcept {
  return (checked_u64(2) * config.num_hidden_layers * config.num_key_value_heads * config.head_dim)
      .value_or_max();
}

std::uint64_t kv_bytes_per_token(const model_config& config) noexcept {
  return (checked_u64(kv_values_per_token(config)) * 2).value_or_max();
}

}  // namespace kvscope
