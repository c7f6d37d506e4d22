#include "engine/engine_setup.hpp"

#include <limits>

#include "engine/engine.hpp"
#include "model/builtin_models.hpp"

namespace kvscope {

expected<engine_setup, std::string> resolve_setup(const engine_options& o) {
  engine_setup s;
  auto model = resolve_model(o.model);
  if (!model) return unexpected{"--model: " + model.error()};
  s.model = std::move(*model);
  constexpr auto u32 = std::numeric_limits<std::uint32_t>::max();
  if (s.model.num_hidden_layers > u32 || s.model.num_key_value_heads > u32 || s.model.head_dim > u32) {
    return unexpected{"--model: " + s.model.name + ": layers, KV heads or head_dim too large"};
  }
  if (!o.gpu.empty()) {
    auto gpu = resolve_gpu(o.gpu);
    if (!gpu) return unexpected{"--gpu: " + gpu.error()};
    s.gpu = std::move(*gpu);
    if (o.compute_efficiency > 0) s.gpu->compute_efficiency = o.compute_efficiency;
    if (o.memory_efficiency > 0) s.gpu->memory_efficiency = o.memory_efficiency;
    if (o.step_overhead_s > 0) s.gpu->step_overhead_s = o.step_overhead_s;
    if (o.sequence_overhead_s > 0) s.gpu->sequence_overhead_s = o.sequence_overhead_s;
    if (auto why = check_gpu_spec(*s.gpu)) return unexpected{"--gpu: " + *why};
  } else if (o.compute_efficiency > 0 || o.memory_efficiency > 0 || o.step_overhead_s > 0) {
    return unexpected{std::string("--compute-efficiency, --memory-efficiency and --step-overhead-ms need a GPU (--gpu)")};
  }
  const bool roofline_wanted =
      o.timing_model == timing_kind::roofline || (o.timing_model == timing_kind::automatic && s.gpu);
  if (roofline_wanted) {
    if (!s.gpu) return unexpected{std::string("--timing roofline needs a GPU: give --gpu (h100, a100-80g, ... or FILE.json)")};
    auto timing = make_roofline({s.model, *s.gpu, o.tensor_parallel, default_dequant_flops_per_value});
    if (!timing) return unexpected{"--tp: " + timing.error()};
    s.timing = std::move(*timing);
  } else if (o.tensor_parallel != 1 && !s.gpu) {
    return unexpected{std::string("--tp needs a GPU (--gpu) to split the model over")};
  }
  s.budget_bytes = o.budget_bytes;
  if (o.budget_bytes == 0) {
    if (!s.gpu) return unexpected{std::string("--budget auto needs a GPU (--gpu) to size the KV cache on")};
    budget_options b;
    b.tp = o.tensor_parallel;
    b.gpu_memory_utilization = o.gpu_memory_utilization;
    b.max_num_batched_tokens = o.scheduler.max_num_batched_tokens;
    b.max_num_seqs = o.scheduler.max_num_seqs;
    auto chosen = budget_auto(s.model, *s.gpu, b);
    if (!chosen) return unexpected{"--budget auto: " + chosen.error()};
    s.budget_bytes = chosen->total_bytes;
    s.budget_auto = *chosen;
  }
  s.max_model_len = o.max_model_len;
  if (s.max_model_len == 0 && s.model.max_position_embeddings <= u32) {
    s.max_model_len = static_cast<std::uint32_t>(s.model.max_position_embeddings);
  }
  if (!o.slo.empty()) {
    auto slo = parse_slo(o.slo);
    if (!slo) return unexpected{slo.error()};
    s.slo = *slo;
  }
  return s;
}

}  // namespace kvscope
