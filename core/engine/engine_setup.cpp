#include "engine/engine_setup.hpp"

#include <limits>

#include "model/builtin_models.hpp"

namespace kvscope {
namespace {

constexpr auto u32_max = std::numeric_limits<std::uint32_t>::max();

// Whether `a` and `b` make the same GPU: its name or file, the engine whose overheads it takes, and
// every override of its factors.
bool same_gpu_options(const engine_options& a, const engine_options& b) {
  return a.gpu == b.gpu && a.vllm_engine == b.vllm_engine && a.compute_efficiency == b.compute_efficiency &&
         a.sustained_share == b.sustained_share && a.memory_efficiency == b.memory_efficiency &&
         a.kv_memory_efficiency == b.kv_memory_efficiency && a.step_overhead_s == b.step_overhead_s &&
         a.layer_overhead_s == b.layer_overhead_s && a.sequence_overhead_s == b.sequence_overhead_s;
}

// The model and the GPU with the options' overrides of its factors; `like`'s when it resolved the
// same ones (a sweep's configs share the base's files: read once, not once per config).
expected<void, std::string> resolve_hardware(const engine_options& o, engine_setup& s, const engine_setup* like) {
  if (like && like->options.model == o.model) {
    s.model = like->model;
  } else {
    auto model = resolve_model(o.model);
    if (!model) return unexpected{"model: " + model.error()};
    s.model = std::move(*model);
  }
  if (s.model.num_hidden_layers > u32_max || s.model.num_key_value_heads > u32_max ||
      s.model.head_dim > u32_max) {
    return unexpected{"model: " + s.model.name + ": layers, KV heads or head_dim too large"};
  }
  if (like && like->gpu && same_gpu_options(like->options, o)) {
    s.gpu = like->gpu;
  } else if (!o.gpu.empty()) {
    auto gpu = resolve_gpu(o.gpu);
    if (!gpu) return unexpected{"gpu: " + gpu.error()};
    s.gpu = std::move(*gpu);
    if (o.vllm_engine == vllm_engine_kind::v0) {
      // V0's host overheads, where the GPU has not its own (a calibration's or a GPU file's).
      auto& g = *s.gpu;
      if (g.step_overhead_s == default_step_overhead_s) g.step_overhead_s = default_v0_step_overhead_s;
      if (g.layer_overhead_s == default_layer_overhead_s) g.layer_overhead_s = default_v0_layer_overhead_s;
      if (g.sequence_overhead_s == default_sequence_overhead_s) {
        g.sequence_overhead_s = default_v0_sequence_overhead_s;
      }
    }
    if (o.compute_efficiency > 0) s.gpu->compute_efficiency = o.compute_efficiency;
    if (o.sustained_share > 0) s.gpu->sustained_share = o.sustained_share;
    if (o.memory_efficiency > 0) s.gpu->memory_efficiency = o.memory_efficiency;
    if (o.kv_memory_efficiency > 0) s.gpu->kv_memory_efficiency = o.kv_memory_efficiency;
    if (o.step_overhead_s > 0) s.gpu->step_overhead_s = o.step_overhead_s;
    if (o.layer_overhead_s > 0) s.gpu->layer_overhead_s = o.layer_overhead_s;
    if (o.sequence_overhead_s > 0) s.gpu->sequence_overhead_s = o.sequence_overhead_s;
    if (auto why = check_gpu_spec(*s.gpu)) return unexpected{"gpu: " + *why};
  } else if (o.compute_efficiency > 0 || o.sustained_share > 0 || o.memory_efficiency > 0 ||
             o.kv_memory_efficiency > 0 ||
             o.step_overhead_s > 0 ||
             o.layer_overhead_s > 0 || o.sequence_overhead_s > 0) {
    return unexpected{std::string(
        "compute_efficiency, memory_efficiency and the overheads need a GPU to override the factors of")};
  }
  return {};
}

// The step time (the roofline's on a GPU) and the KV budget (`auto`: as vLLM sizes it).
expected<void, std::string> resolve_timing_and_budget(const engine_options& o, engine_setup& s) {
  const bool roofline_wanted =
      o.timing_model == timing_kind::roofline || (o.timing_model == timing_kind::automatic && s.gpu);
  if (roofline_wanted) {
    if (!s.gpu) return unexpected{std::string("roofline timing needs a GPU (h100, a100-80g, ... or FILE.json)")};
    auto dequant = default_dequant_flops_per_value;  // q4o's q4 level also restores its int8 channels
    if (o.q4_storage == q4_format::q4o) {
      dequant[ordinal(precision::q4)] = q4o_dequant_flops_per_value(o.q4o_channels, s.model.head_dim);
    }
    dequant[ordinal(precision::q3)] = q3_dequant_flops_per_value(o.q4o_channels, s.model.head_dim);
    auto timing = make_roofline({s.model, *s.gpu, o.tensor_parallel, dequant});
    if (!timing) return unexpected{"tensor_parallel: " + timing.error()};
    s.timing = std::move(*timing);
  } else if (o.tensor_parallel != 1 && !s.gpu) {
    return unexpected{std::string("tensor_parallel needs a GPU to split the model over")};
  }
  s.budget_bytes = o.budget_bytes;
  budget_options b;
  b.tp = o.tensor_parallel;
  b.gpu_memory_utilization = o.gpu_memory_utilization;
  b.max_num_batched_tokens = o.scheduler.max_num_batched_tokens;
  b.max_num_seqs = o.scheduler.max_num_seqs;
  if (o.budget_bytes != 0 && s.gpu) {
    // A budget given on a GPU must fit beside the weights, or the run models no real server.
    if (auto why = check_budget_fits(s.model, *s.gpu, o.budget_bytes, b)) return unexpected{"budget: " + *why};
  }
  if (o.budget_bytes == 0) {
    if (!s.gpu) return unexpected{std::string("budget auto needs a GPU to size the KV cache on")};
    auto chosen = budget_auto(s.model, *s.gpu, b);
    if (!chosen) return unexpected{"budget auto: " + chosen.error()};
    s.budget_bytes = chosen->total_bytes;
    s.budget_auto = *chosen;
  }
  return {};
}

// The options that need no file: policy, scheduler, linear step time.
std::optional<std::string> check_values(const engine_options& o) {
  if (auto reason = validate(o.policy)) return invalid_policy_message(*reason);
  if (o.scheduler.max_num_seqs == 0) return "max_num_seqs must be at least 1";
  if (o.scheduler.max_num_batched_tokens == 0) return "max_num_batched_tokens must be at least 1";
  if (!(o.scheduler.watermark >= 0 && o.scheduler.watermark < 1)) return "watermark must be in [0, 1)";
  if (!(o.timing.base_s >= 0 && o.timing.per_prefill_token_s >= 0 &&
        o.timing.per_decode_token_s >= 0) ||
      o.timing.base_s + o.timing.per_decode_token_s <= 0) {
    return "step-time model must be non-negative and not all zero";
  }
  return std::nullopt;
}

}  // namespace

expected<engine_setup, std::string> resolve_setup(const engine_options& o, const engine_setup* like) {
  engine_setup s;
  s.options = o;
  if (auto r = resolve_hardware(o, s, like); !r) return unexpected{r.error()};
  if (auto r = resolve_timing_and_budget(o, s); !r) return unexpected{r.error()};
  s.max_model_len = o.max_model_len;
  if (s.max_model_len == 0 && s.model.max_position_embeddings <= u32_max) {
    s.max_model_len = static_cast<std::uint32_t>(s.model.max_position_embeddings);
  }
  if (!o.scheduler.chunked_prefill && s.max_model_len > o.scheduler.max_num_batched_tokens) {
    // vLLM refuses the same server at start-up: a longer prompt could never be scheduled whole.
    return unexpected{"max_num_batched_tokens (" + std::to_string(o.scheduler.max_num_batched_tokens) +
                      ") is smaller than max_model_len (" + std::to_string(s.max_model_len) +
                      "): without chunked prefill a step must hold a whole prompt; raise the first or "
                      "lower the second"};
  }
  if (!o.slo.empty()) {
    auto slo = parse_slo(o.slo);
    if (!slo) return unexpected{slo.error()};
    s.slo = *slo;
  }
  if (auto reason = check_values(o)) return unexpected{*reason};
  if (o.q4_storage == q4_format::q4o && s.model.head_dim > q4o_max_head_dim) {
    return unexpected{"q4_format: q4o stores keys of head_dim up to " +
                      std::to_string(q4o_max_head_dim) + " (one-byte channel indices); " +
                      s.model.name + " has " + std::to_string(s.model.head_dim)};
  }
  // q3 keeps the same one-byte channel indices; checked only for a policy that reaches it, so
  // that no other config changes validity.
  if (reaches_q3(o.policy) && s.model.head_dim > q4o_max_head_dim) {
    return unexpected{"policy: q3 stores keys of head_dim up to " + std::to_string(q4o_max_head_dim) +
                      " (one-byte channel indices); " + s.model.name + " has " + std::to_string(s.model.head_dim)};
  }
  if (auto reason = paged_cache::validate(cache_config(s))) return unexpected{*reason};
  return s;
}

std::optional<std::string> validate(const engine_options& options) {
  auto setup = resolve_setup(options);
  if (!setup) return setup.error();
  return std::nullopt;
}

paged_cache_config cache_config(const engine_setup& s) {
  paged_cache_config c;
  c.pool.shape = shape_of(s.model);
  c.pool.block_size = s.options.block_size;
  c.pool.budget_bytes = s.budget_bytes;
  c.pool.mode = s.options.payload;
  c.pool.q4_storage = s.options.q4_storage;
  c.pool.q4o_channels = s.options.q4o_channels;
  c.tail_tokens = s.options.tail_tokens;
  c.max_tokens = s.options.max_tokens;
  return c;
}

}  // namespace kvscope
