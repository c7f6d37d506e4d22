#pragma once
// The time of one engine step (one forward pass over every scheduled sequence). A step runs
// its kernels one after another, so their times add; each kernel class is as slow as the slower
// of its arithmetic and its memory traffic. For tp GPUs, everything below is per GPU:
//
//   t      = step_overhead + layers * layer_overhead + sequences * sequence_overhead
//            + matmul + attention + elementwise + comm
//   matmul = max(2 * active_params * tokens / tp / (eta_c * share * gemm_flops),
//                weights read once per step / tp / (eta_m * peak_bandwidth))
//   attention = max((4 * layers * q_heads * head_dim * context_token_reads / tp + dequant FLOPs
//                    / kv_shards) / (eta_c * share * attention_flops),
//                   (KV read + KV written + migration bytes) / kv_shards / (eta_kv * bandwidth))
//   elementwise = tokens * layers * (8 * hidden + (2 * (q_heads + kv_heads) * head_dim
//                 + 3 * mlp_width) / tp) * dtype_bytes / (eta_m * peak_bandwidth)
//   comm (tp > 1) = 2 all-reduces per layer of hidden * tokens * dtype bytes, each moving
//        2 (tp - 1) / tp of it over the link (ring all-reduce)
//
// gemm_flops and attention_flops are what the GPU's best matmul and FlashAttention reach in a
// benchmark, share (sustained_share) how much of them it holds through a serving run
// (gpu_spec.hpp). docs/timing-model.md explains every term, its default and its source.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/gpu_spec.hpp"
#include "model/model_config.hpp"
#include "quant/level.hpp"
#include "util/expected.hpp"

namespace kvscope {

// FLOPs to dequantize one KV value read at each level, before attention uses it:
//   fp16 0 (used as stored)
//   q8   2 (int8 -> float convert, multiply by the group scale)
//   fp8  2 (e4m3 -> float convert, multiply by the group scale)
//   q4   4 (unpack the nibble, convert, then q * d + m: a multiply and an add)
//   q3   q3_dequant_flops_per_value (below); 10 here, its value at head_dim 128 without outliers
// Integer unpacking and converts are counted as FLOPs because they occupy the same issue slots.
inline constexpr std::array<double, kv_level_count> default_dequant_flops_per_value = {0, 2, 2, 4, 10};

// FLOPs a value read at the q3 level (quant/q3.hpp), from what its kernels do: unpack the 3-bit
// code and look up its centroid, scaled once a row (2); undo the rotation, one add or subtract
// per value at each of the log2(n) butterfly stages (n = q3_rotation_size: 7 for 128); flip the
// sign (1); and restore each key row's `channels` outlier channels as q4o does (2 x channels a
// key row, over the K and V values a token reads). 10.03125 for llama3-8b with 4 channels.
constexpr double q3_dequant_flops_per_value(std::uint32_t channels, std::uint64_t head_dim) noexcept {
  double stages = 0;
  for (std::uint64_t n = head_dim & (~head_dim + 1); n > 1; n /= 2) ++stages;
  return 3.0 + stages + 2.0 * channels / (2.0 * static_cast<double>(head_dim));
}

// FLOPs a value read at the q4 level when it is stored as q4o (quant/q4o.hpp), from what the
// q4o kernels do: q4's 4 on every value (an outlier's position is decoded from its stand-in's
// code, then overwritten), plus, for each of a key row's `channels` outlier channels, an int8
// convert and a multiply by the channel's scale (restore_q4o_outliers). That is 2 x channels a
// key row of head_dim values, over the K and V values a token reads: 4 + channels / head_dim
// (4.03125 for llama3-8b with 4). The side records' bytes need no term of their own: they are
// in the q4 block's scale bytes, which the KV bytes read count.
constexpr double q4o_dequant_flops_per_value(std::uint32_t channels, std::uint64_t head_dim) noexcept {
  return 4.0 + 2.0 * channels / (2.0 * static_cast<double>(head_dim));
}

// What one step does, summed over the sequences it schedules. The caller knows the cache, so it
// supplies bytes at each block's stored precision, scales included.
struct step_work {
  std::uint64_t tokens = 0;               // tokens computed: prefill chunks plus one per decode
  std::uint64_t sequences = 0;            // sequences scheduled (each pays the per-sequence overhead)
  std::uint64_t context_token_reads = 0;  // over those tokens, the tokens each one attends to
  std::array<std::uint64_t, kv_level_count> kv_bytes_read_by_level{};
  std::uint64_t kv_bytes_written = 0;  // the new tokens' K and V
  std::uint64_t migration_bytes = 0;   // blocks requantized this step, read plus written
  std::array<std::uint64_t, kv_level_count> kv_token_reads_by_level{};  // for dequant FLOPs
  // A later step of a multi-step schedule (`--num-scheduler-steps`): the host scheduled it and
  // prepared its inputs with the schedule's first step, so it pays no step or sequence overhead.
  bool scheduled_earlier = false;
};

enum class bound_by { compute, memory };

struct step_time {
  double seconds = 0;      // overhead_s + matmul_s + attention_s + elementwise_s + comm_s
  double matmul_s = 0;     // the slower of the matmuls' FLOPs and the weight reads
  double elementwise_s = 0;  // norms, rotary embedding, activation: their activation traffic
  double attention_s = 0;  // the slower of attention's FLOPs and its KV traffic
  double compute_s = 0;    // FLOPs at the attainable rates (matmul and attention parts summed)
  double memory_s = 0;     // bytes at the bandwidths they reach (weights and KV summed)
  double comm_s = 0;       // tensor-parallel all-reduces
  double overhead_s = 0;   // step, per-layer and per-sequence overheads
  double flops = 0;                   // per GPU
  double bytes = 0;                   // HBM traffic per GPU
  bound_by bound = bound_by::memory;  // which of compute_s and memory_s is larger

  friend bool operator==(const step_time&, const step_time&) = default;
};

// A run's step times summed by term (the engine keeps one; all 0 with linear timing).
struct step_time_totals {
  double matmuls = 0;      // weight reads or matmul FLOPs, the slower
  double attention = 0;    // KV reads (and re-quantization) or attention FLOPs, the slower
  double all_reduces = 0;  // tensor parallelism's
  double elementwise = 0;  // norms, rotary embedding, activations
  double overheads = 0;    // host per step and sequence, launch gaps per layer
};

struct roofline_config {
  model_config model;
  gpu_spec gpu;
  std::uint32_t tp = 1;  // tensor-parallel GPUs
  std::array<double, kv_level_count> dequant_flops_per_value = default_dequant_flops_per_value;
};

// A checked roofline_config with its per-step constants worked out once.
class roofline {
 public:
  const roofline_config& config() const noexcept { return config_; }

  // The time of a step doing `work`. A step with no tokens reads no weights and runs no matmuls;
  // one with nothing at all to do takes 0 s.
  step_time estimate(const step_work& work) const noexcept;

  // Weight bytes one GPU reads in a step of `tokens` tokens: all of them / tp for a dense model;
  // for MoE the non-expert weights plus the experts the tokens are expected to touch, assuming
  // uniform routing: E * (1 - (1 - k/E)^tokens) distinct experts per MoE layer.
  double weight_bytes_read(std::uint64_t tokens) const noexcept;

 private:
  friend expected<roofline, std::string> make_roofline(roofline_config config);
  explicit roofline(roofline_config config);

  roofline_config config_;
  double active_parameters_ = 0;
  double dense_weight_bytes_ = 0;        // all weights (dense model) or the non-expert ones (MoE)
  double expert_bytes_ = 0;              // one expert of one layer
  double attention_flops_per_read_ = 0;  // 4 * layers * q_heads * head_dim
  double kv_values_per_token_ = 0;
  double activation_bytes_per_token_ = 0;  // per GPU: what the non-matmul kernels stream
  double kv_shards_ = 1;
  // The GPU's rates as estimate() divides by them (the same products, formed once): attainable
  // GEMM and attention FLOP/s times the efficiencies, weight and KV bandwidth.
  double gemm_rate_ = 1, attention_rate_ = 1, weight_bandwidth_ = 1, kv_bandwidth_ = 1;
};

// Checks the GPU (check_gpu_spec), the split (check_tensor_parallel) and the dequant FLOPs
// (finite, >= 0); the error says which is wrong.
expected<roofline, std::string> make_roofline(roofline_config config);

}  // namespace kvscope
