#include "model/kv_budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/checked_u64.hpp"
#include "model/tensor_parallel.hpp"
#include "util/byte_size.hpp"

namespace kvscope {
namespace {

using detail::checked_u64;

// "141.1 GB": decimal gigabytes, as datasheets and the error messages people compare them with.
std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
  return text;
}

std::string fraction(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

}  // namespace

std::uint64_t activation_reserve(const model_config& model, std::uint32_t tp,
                                 std::uint64_t max_num_batched_tokens,
                                 std::uint64_t max_num_seqs) noexcept {
  const std::uint64_t split = std::max<std::uint32_t>(tp, 1);
  const std::uint64_t mlp_width =
      std::max(model.intermediate_size, model.num_experts_per_tok * model.moe_intermediate_size);
  const checked_u64 per_token =
      checked_u64(mlp_width / split) * 3 + checked_u64(model.hidden_size) * 2;
  const checked_u64 forward = checked_u64(max_num_batched_tokens) * per_token * model.dtype_bytes;
  const checked_u64 sampler =
      checked_u64(std::min(max_num_seqs, max_num_batched_tokens)) * model.vocab_size * 8;
  const std::uint64_t peak = std::max(forward.value_or_max(), sampler.value_or_max());
  return (checked_u64(peak) + runtime_reserve_bytes).value_or_max();
}

expected<kv_budget, std::string> budget_auto(const model_config& model, const gpu_spec& gpu,
                                             const budget_options& options) {
  if (auto why = check_gpu_spec(gpu)) return unexpected{std::move(*why)};
  if (auto why = check_tensor_parallel(model, options.tp)) return unexpected{std::move(*why)};
  const double utilization = options.gpu_memory_utilization;
  if (!(utilization > 0 && utilization <= 1)) {
    return unexpected{"gpu_memory_utilization must be in (0, 1], got " + fraction(utilization)};
  }

  kv_budget b;
  b.usable_bytes_per_gpu =
      static_cast<std::uint64_t>(std::floor(static_cast<double>(gpu.memory_bytes) * utilization));
  // Embeddings, lm_head and every projection split over the GPUs; the few replicated norm
  // weights are negligible.
  b.weight_bytes_per_gpu = (weight_bytes(model) + options.tp - 1) / options.tp;
  b.activation_reserve_bytes = options.activation_reserve_bytes.value_or(
      activation_reserve(model, options.tp, options.max_num_batched_tokens, options.max_num_seqs));

  const checked_u64 needed = checked_u64(b.weight_bytes_per_gpu) + b.activation_reserve_bytes;
  if (needed.overflowed() || needed.value_or_max() >= b.usable_bytes_per_gpu) {
    return unexpected{
        model.name + " does not fit on " + std::to_string(options.tp) + " x " + gpu.name +
        ": weights " + gigabytes(static_cast<double>(b.weight_bytes_per_gpu)) +
        " + activation reserve " + gigabytes(static_cast<double>(b.activation_reserve_bytes)) +
        " per GPU > " + gigabytes(static_cast<double>(b.usable_bytes_per_gpu)) + " usable (" +
        fraction(utilization) + " x " + gigabytes(static_cast<double>(gpu.memory_bytes)) + ")"};
  }
  b.per_gpu_bytes = b.usable_bytes_per_gpu - needed.value_or_max();
  b.total_bytes = (checked_u64(b.per_gpu_bytes) * kv_shards(model, options.tp)).value_or_max();
  return b;
}

std::optional<std::string> check_budget_fits(const model_config& model, const gpu_spec& gpu,
                                             std::uint64_t budget_bytes, const budget_options& options) {
  if (check_gpu_spec(gpu) || check_tensor_parallel(model, options.tp)) return std::nullopt;  // refused elsewhere
  // Each GPU holds its share of the weights and 1/kv_shards of the KV budget.
  const std::uint64_t weights = (weight_bytes(model) + options.tp - 1) / options.tp;
  const std::uint64_t shards = kv_shards(model, options.tp);
  const std::uint64_t kv = (budget_bytes + shards - 1) / shards;
  const checked_u64 needed = checked_u64(weights) + kv;
  if (!needed.overflowed() && needed.value_or_max() <= gpu.memory_bytes) return std::nullopt;

  const std::string group = std::to_string(options.tp) + " x " + gpu.name;
  std::string why = "a KV budget of " + format_byte_size(budget_bytes) + " does not fit beside " + model.name +
                    " on " + group + ": weights " + format_byte_size(weights) + " + KV budget " +
                    format_byte_size(kv) + " per GPU > " + format_byte_size(gpu.memory_bytes) + " of GPU memory";
  const auto chosen = budget_auto(model, gpu, options);
  if (chosen) return why + "; budget auto would give " + format_byte_size(chosen->total_bytes) + " on " + group;
  why += "; budget auto finds no room on " + group + " either";
  // Not even auto fits: the fewest GPUs that hold the weights, by tensor parallelism.
  for (std::uint32_t tp = options.tp * 2; tp <= 64; tp *= 2) {
    budget_options more = options;
    more.tp = tp;
    if (check_tensor_parallel(model, tp)) continue;
    if (const auto on_more = budget_auto(model, gpu, more)) {
      return why + "; on " + std::to_string(tp) + " x " + gpu.name + " (tensor parallel) it would give " +
             format_byte_size(on_more->total_bytes);
    }
  }
  return why;
}

}  // namespace kvscope
