#include "model/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "model/all_reduce.hpp"
#include "model/tensor_parallel.hpp"

namespace kvscope {

roofline::roofline(roofline_config config) : config_(std::move(config)) {
  const auto& m = config_.model;
  const double dtype = m.dtype_bytes;
  active_parameters_ = static_cast<double>(active_parameter_count(m));
  const double all_experts = static_cast<double>(m.num_moe_layers) *
                             static_cast<double>(m.num_experts) *
                             static_cast<double>(expert_parameter_count(m));
  dense_weight_bytes_ = static_cast<double>(parameter_count(m)) * dtype - all_experts * dtype;
  expert_bytes_ = static_cast<double>(expert_parameter_count(m)) * dtype;
  // Per query head and attended token: q.k (head_dim multiply-adds) and p.v (head_dim more).
  attention_flops_per_read_ = 4.0 * static_cast<double>(m.num_hidden_layers) *
                              static_cast<double>(m.num_attention_heads) *
                              static_cast<double>(m.head_dim);
  kv_values_per_token_ = static_cast<double>(kv_values_per_token(m));
  kv_shards_ = static_cast<double>(kv_shards(m, config_.tp));
  // Per token and layer, the kernels between the matmuls read and write the activations: the
  // residual add fused with each of the two RMSNorms (read 2 hidden, write 2: 4 hidden, twice),
  // rotary embedding on q and k (read and write each), SiLU-and-mul (read gate and up, write
  // one). The hidden-wide tensors are whole on every GPU; the heads and the MLP are split.
  const double tp = config_.tp;
  const double mlp_width = static_cast<double>(
      std::max(m.intermediate_size, m.num_experts_per_tok * m.moe_intermediate_size));
  const double heads_width = static_cast<double>(m.num_attention_heads + m.num_key_value_heads) *
                             static_cast<double>(m.head_dim);
  activation_bytes_per_token_ = static_cast<double>(m.num_hidden_layers) * dtype *
                                (8.0 * static_cast<double>(m.hidden_size) + (2.0 * heads_width + 3.0 * mlp_width) / tp);
  const auto& gpu = config_.gpu;
  const double eta_c = gpu.compute_efficiency * gpu.sustained_share;
  gemm_rate_ = eta_c * attainable_gemm_flops(gpu);
  attention_rate_ = eta_c * attainable_attention_flops(gpu);
  weight_bandwidth_ = gpu.memory_efficiency * gpu.memory_bandwidth_bytes_per_s;
  kv_bandwidth_ = gpu.kv_memory_efficiency * gpu.memory_bandwidth_bytes_per_s;
}

expected<roofline, std::string> make_roofline(roofline_config config) {
  if (auto why = check_gpu_spec(config.gpu)) return unexpected{std::move(*why)};
  if (auto why = check_tensor_parallel(config.model, config.tp)) return unexpected{std::move(*why)};
  if (weight_bytes(config.model) == std::numeric_limits<std::uint64_t>::max()) {
    return unexpected{config.model.name + ": the model's size does not fit in 64 bits"};
  }
  for (std::size_t level = 0; level < kv_level_count; ++level) {
    const double f = config.dequant_flops_per_value[level];
    if (!std::isfinite(f) || f < 0) {
      return unexpected{"dequant FLOPs per value of level " + std::to_string(level) +
                        " must be a finite number >= 0, got " + std::to_string(f)};
    }
  }
  return roofline(std::move(config));
}

double roofline::weight_bytes_read(std::uint64_t tokens) const noexcept {
  if (tokens == 0) return 0;
  const auto& m = config_.model;
  double bytes = dense_weight_bytes_;
  if (m.is_moe()) {
    const double experts = static_cast<double>(m.num_experts);
    const double per_token = static_cast<double>(m.num_experts_per_tok);
    // Chance an expert is missed by all tokens is (1 - k/E)^T; log1p keeps it exact for small k/E.
    const double missed = std::exp(static_cast<double>(tokens) * std::log1p(-per_token / experts));
    const double touched = experts * (1.0 - missed);
    bytes += static_cast<double>(m.num_moe_layers) * touched * expert_bytes_;
  }
  return bytes / static_cast<double>(config_.tp);
}

step_time roofline::estimate(const step_work& work) const noexcept {
  const auto& m = config_.model;
  const auto& gpu = config_.gpu;
  const double tp = config_.tp;
  const double tokens = static_cast<double>(work.tokens);

  const double kv_read = static_cast<double>(std::accumulate(
      work.kv_bytes_read_by_level.begin(), work.kv_bytes_read_by_level.end(), std::uint64_t{0}));
  const double kv_bytes = kv_read + static_cast<double>(work.kv_bytes_written) +
                          static_cast<double>(work.migration_bytes);
  double dequant_flops = 0;
  for (std::size_t level = 0; level < kv_level_count; ++level) {
    // A level nobody read adds +0, which changes no sum: most steps read one or two levels.
    if (work.kv_token_reads_by_level[level] == 0) continue;
    dequant_flops += static_cast<double>(work.kv_token_reads_by_level[level]) *
                     kv_values_per_token_ * config_.dequant_flops_per_value[level];
  }

  const double weight_bytes = weight_bytes_read(work.tokens);
  const double kv_bytes_per_gpu = kv_bytes / kv_shards_;
  const double matmul_flops = 2.0 * active_parameters_ * tokens / tp;
  const double attention_flops =
      attention_flops_per_read_ * static_cast<double>(work.context_token_reads) / tp +
      dequant_flops / kv_shards_;
  step_time t;
  t.bytes = weight_bytes + kv_bytes_per_gpu;
  t.flops = matmul_flops + attention_flops;
  if (t.bytes == 0 && t.flops == 0) return t;  // nothing happened: no step

  const double matmul_compute = matmul_flops / gemm_rate_;
  const double attention_compute = attention_flops / attention_rate_;
  const double weight_read = weight_bytes / weight_bandwidth_, kv_traffic = kv_bytes_per_gpu / kv_bandwidth_;
  const double activation_bytes = activation_bytes_per_token_ * tokens;
  t.bytes += activation_bytes;
  t.matmul_s = std::max(matmul_compute, weight_read);
  t.attention_s = std::max(attention_compute, kv_traffic);
  t.elementwise_s = activation_bytes / weight_bandwidth_;
  t.compute_s = matmul_compute + attention_compute;
  t.memory_s = weight_read + kv_traffic + t.elementwise_s;
  if (config_.tp > 1) {
    // After attention and after the MLP each GPU holds a partial sum of the hidden states: two
    // all-reduces a layer, each a latency and the bytes vLLM's algorithm moves (all_reduce.hpp).
    const double tensor = static_cast<double>(m.hidden_size) * tokens * m.dtype_bytes;
    const double all_reduces = 2.0 * static_cast<double>(m.num_hidden_layers);
    t.comm_s = all_reduces * all_reduce_seconds(tensor, config_.tp, gpu.link_bandwidth_bytes_per_s);
  }
  // A step with tokens runs every layer; one with only migrations runs no layer kernels.
  const double layers = work.tokens > 0 ? static_cast<double>(m.num_hidden_layers) : 0.0;
  // Multi-step scheduling exists to spread the host's work over its steps (vLLM RFC #6854):
  // only the layers' launch costs recur in every step of a schedule.
  const double host_s =
      work.scheduled_earlier ? 0.0 : gpu.step_overhead_s + gpu.sequence_overhead_s * static_cast<double>(work.sequences);
  t.overhead_s = host_s + gpu.layer_overhead_s * layers;
  t.bound = t.compute_s > t.memory_s ? bound_by::compute : bound_by::memory;
  t.seconds = t.overhead_s + t.matmul_s + t.attention_s + t.elementwise_s + t.comm_s;
  return t;
}

}  // namespace kvscope
