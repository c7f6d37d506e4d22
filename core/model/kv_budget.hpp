#pragma once
// How much KV cache fits beside the weights, worked out the way vLLM does it: a share of each
// GPU's memory (gpu_memory_utilization), less the weights, less the peak memory of a forward pass
// over a full batch (vLLM measures it by profiling a dummy forward of max_num_batched_tokens
// tokens; we estimate it, see activation_reserve).
#include <cstdint>
#include <optional>
#include <string>

#include "model/gpu_spec.hpp"
#include "model/model_config.hpp"
#include "util/expected.hpp"

namespace kvscope {

// Memory a serving process holds outside PyTorch's allocator when vLLM sizes its KV cache:
// cuBLAS workspaces, NCCL buffers, allocator slack; vLLM adds it as "non-torch" memory. 512 MiB is
// what two published start-up logs leave once weights, activations and KV are counted (see
// docs/timing-model.md, "KV budget"). CUDA graphs are not in it: vLLM captures them after it has
// allocated the KV cache, out of the memory gpu_memory_utilization leaves free.
inline constexpr std::uint64_t runtime_reserve_bytes = std::uint64_t{512} << 20;

struct budget_options {
  std::uint32_t tp = 1;                 // tensor-parallel GPUs
  double gpu_memory_utilization = 0.9;  // vLLM's default share of each GPU's memory
  // vLLM's online-serving defaults on GPUs with >= 70 GiB other than A100 (EngineArgs
  // get_batch_defaults, vllm/engine/arg_utils.py); other GPUs default to 2048 and 256.
  std::uint64_t max_num_batched_tokens = 8192;
  std::uint64_t max_num_seqs = 1024;
  std::optional<std::uint64_t> activation_reserve_bytes;  // per GPU; unset: activation_reserve()
};

// Estimated peak memory beside the weights that vLLM's start-up profile finds on one GPU: the
// larger of its two dummy runs, plus runtime_reserve_bytes. The runs follow each other, so their
// peaks do not add:
//   forward: tokens x (3 x mlp_width / tp + 2 x hidden) x dtype_bytes   the MLP's fused gate|up
//       output (2 x mlp_width / tp) and its activated half, beside the residual and normed input
//   sampler: min(max_num_seqs, tokens) x vocab_size x 8    fp32 logits and the fp32
//       probabilities computed from them, one row per request
// mlp_width is intermediate_size, or num_experts_per_tok x moe_intermediate_size if larger.
std::uint64_t activation_reserve(const model_config& model, std::uint32_t tp,
                                 std::uint64_t max_num_batched_tokens,
                                 std::uint64_t max_num_seqs) noexcept;

struct kv_budget {
  std::uint64_t total_bytes = 0;    // KV the group holds: per_gpu_bytes x kv_shards(model, tp)
  std::uint64_t per_gpu_bytes = 0;  // usable - weights - activation reserve
  std::uint64_t usable_bytes_per_gpu = 0;      // memory_bytes x gpu_memory_utilization
  std::uint64_t weight_bytes_per_gpu = 0;      // weight_bytes / tp
  std::uint64_t activation_reserve_bytes = 0;  // per GPU
};

// The KV budget of `model` on `tp` x `gpu`, or an error when nothing is left, e.g.
// "llama3-70b does not fit on 1 x h100: weights 141.1 GB + activation reserve 4.4 GB per GPU
// > 77.0 GB usable (0.9 x 85.5 GB)".
expected<kv_budget, std::string> budget_auto(const model_config& model, const gpu_spec& gpu,
                                             const budget_options& options = {});

// Why an explicit KV budget of `budget_bytes` (the whole group's, as budget_auto's total_bytes)
// cannot sit beside the weights on options.tp x `gpu`, or nullopt. Refused when a GPU's share of
// the weights plus its share of the budget (1/kv_shards) exceeds its whole memory: no
// gpu_memory_utilization or activation reserve makes that fit, so the bound is one nobody
// needs to argue about. The message gives the numbers and what budget_auto would give, on more
// GPUs when the weights leave no room on these; it names no command-line flag.
std::optional<std::string> check_budget_fits(const model_config& model, const gpu_spec& gpu,
                                             std::uint64_t budget_bytes, const budget_options& options = {});

}  // namespace kvscope
