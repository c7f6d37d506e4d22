#pragma once
// What the step-time model needs to know of a GPU: datasheet peaks, memory, the link tensor
// parallelism all-reduces over, and how much of the peaks a serving engine really gets.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "util/expected.hpp"

namespace kvscope {

// The defaults below are fitted once, together, over every point of the fidelity set
// (tests/data/fidelity: published measurements of real vLLM servers on H100 and A100 GPUs, three
// vLLM versions, five models), by `kvscope-cli check-fidelity --fit`; docs/timing-model.md gives
// the fit, its data and its errors. One set for every GPU and model: what differs between GPUs is
// in their datasheet and benchmark figures (the GPU files), not in these.

// Share of the attainable rates (gemm_flops, attention_flops) a serving step's matmuls and
// attention reach: below 1 because a step's GEMMs are smaller and more varied than the best shape
// a matmul benchmark finds.
inline constexpr double default_compute_efficiency = 0.7439;

// Share of peak memory bandwidth the matmuls reach while they stream the weights (decode's GEMVs
// and small GEMMs): streaming kernels get close to 90 % of HBM peak.
inline constexpr double default_memory_efficiency = 0.7134;

// Share of peak memory bandwidth attention reaches over the paged KV cache: blocks of 16 tokens
// scattered through the pool, gathered through a block table, read in shorter bursts than weights.
inline constexpr double default_kv_memory_efficiency = 0.4161;

// Time per step no roofline sees: scheduling, input preparation and sampling on the host that
// the engine does not overlap with GPU work. vLLM's v0.6.0 performance post
// (blog.vllm.ai/2024/09/05/perf-update.html) found it a large share of a Llama-3-8B step on an
// H100 under V0; V1's engine core keeps it small, and the fit leaves it weakly determined
// (the set's V1 points are large batches and one concurrency-1 decode).
inline constexpr double default_step_overhead_s = 62.2e-6;

// Time per layer per step beside its matmuls and attention: the gaps between kernel launches,
// which grow with depth and not with the bytes or FLOPs of the step.
inline constexpr double default_layer_overhead_s = 13.98e-6;

// Host time per scheduled sequence per step: building its inputs, sampling and detokenizing its
// token, streaming it out.
inline constexpr double default_sequence_overhead_s = 2.12e-6;

// The same three host overheads for vLLM's V0 engine (0.5-0.7), fitted with the above on the
// set's V0 points: engine_setup uses them for --vllm-engine v0 where the GPU has the V1 defaults.
// V0 scheduled and processed outputs in Python between forward passes: 1.4 ms a step and 65 us
// a sequence, paid once per schedule under multi-step scheduling (roofline.hpp).
inline constexpr double default_v0_step_overhead_s = 1407.0e-6;
inline constexpr double default_v0_layer_overhead_s = 13.98e-6;
inline constexpr double default_v0_sequence_overhead_s = 65.07e-6;

// Attainable shares of peak BF16 FLOP/s for a GPU file that gives no benchmark figure: the best
// BF16 matmul on NVIDIA data-centre GPUs reaches 80-86 % of peak (stas00/ml-engineering, "Maximum
// Achievable Matmul FLOPS comparison table"), FlashAttention-2's forward pass 35-73 %
// (Dao, arXiv:2307.08691; Shah et al., arXiv:2407.08608).
inline constexpr double default_gemm_share_of_peak = 0.8;
inline constexpr double default_attention_share_of_peak = 0.5;

// The fidelity fit's reference GPU: its sustained_share is 1 by definition, so the shared
// compute_efficiency is relative to its benchmark rates; another GPU's share says how much less of
// its own benchmark rates it holds through a serving run (docs/timing-model.md).
inline constexpr std::string_view sustained_share_reference_gpu = "a100-80g";

struct gpu_spec {
  std::string name;                         // a built-in's short name, or the file it came from
  std::string description;                  // e.g. "NVIDIA H100 SXM5 80GB (HBM3), NVLink 4"
  double peak_bf16_flops = 0;               // dense (no 2:4 sparsity), FLOP/s
  double memory_bandwidth_bytes_per_s = 0;  // datasheet peak
  std::uint64_t memory_bytes = 0;           // the total the driver reports
  double link_bandwidth_bytes_per_s = 0;    // NVLink or PCIe, one direction
  // What the best large BF16 matmul sustains, FLOP/s (a benchmark's figure, cited in the file);
  // 0: default_gemm_share_of_peak x peak.
  double gemm_flops = 0;
  // What FlashAttention's forward pass sustains at head_dim 128, FLOP/s (cited); 0:
  // default_attention_share_of_peak x peak.
  double attention_flops = 0;
  // Share of gemm_flops and attention_flops the GPU holds through a serving run against the
  // reference GPU's (sustained_share_reference_gpu): a benchmark times seconds of one kernel, a
  // server runs for minutes at its power limit. 1: as the reference.
  double sustained_share = 1.0;
  double compute_efficiency = default_compute_efficiency;    // share of the attainable rates
  double memory_efficiency = default_memory_efficiency;      // of peak bandwidth, weight reads
  double kv_memory_efficiency = default_kv_memory_efficiency;  // of peak bandwidth, KV traffic
  double step_overhead_s = default_step_overhead_s;          // per step
  double layer_overhead_s = default_layer_overhead_s;        // per layer per step
  double sequence_overhead_s = default_sequence_overhead_s;  // per scheduled sequence per step

  friend bool operator==(const gpu_spec&, const gpu_spec&) = default;
};

// gemm_flops, or its default share of the peak when the file gives none.
double attainable_gemm_flops(const gpu_spec& gpu) noexcept;
// attention_flops, or its default share of the peak when the file gives none.
double attainable_attention_flops(const gpu_spec& gpu) noexcept;

// Why `gpu` cannot be used, naming the field ("peak_bf16_flops: must be > 0, got 0"), or nullopt.
std::optional<std::string> check_gpu_spec(const gpu_spec& gpu);

// Parses a GPU file: a JSON object with the fields of gpu_spec. name (default: `source`'s file
// name without ".json"), description, the efficiency factors and step_overhead_s are optional;
// memory_bytes is a whole number or a size string ("81559 MiB", "80 GB"); "source" holds
// citations and is not read. Unknown keys are errors, so a misspelt override cannot go unnoticed.
// Errors name `source` and the field.
expected<gpu_spec, std::string> parse_gpu_spec(std::string_view text, std::string_view source);

expected<gpu_spec, std::string> read_gpu_spec(const std::filesystem::path& path);

// h100, h200, a100-80g, a100-40g, l40s, rtx4090.
std::span<const std::string_view> builtin_gpu_names() noexcept;

// The built-in called exactly `name`; an error listing the names otherwise.
expected<gpu_spec, std::string> builtin_gpu(std::string_view name);

// A path ending in ".json" is read as a GPU file; anything else must be a built-in's name.
expected<gpu_spec, std::string> resolve_gpu(std::string_view name_or_path);

}  // namespace kvscope
