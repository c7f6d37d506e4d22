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

// Share of peak dense BF16 FLOP/s a whole step's compute reaches. Large BF16 GEMMs run at
// roughly 70-80 % of the datasheet peak (which assumes boost clocks); a step also runs
// attention, norms and activations below GEMM rate. Pope et al., "Efficiently Scaling Transformer
// Inference" (arXiv:2211.05102), report 76 % MFU for large-batch prefill on TPU v4 with heavily
// tuned kernels; GPU serving stacks on ~1k-token chunks sit below that. 0.6 is a modelling
// choice in that range, not a measurement: calibrate against a measured prefill step.
inline constexpr double default_compute_efficiency = 0.6;

// Share of peak memory bandwidth a step's reads and writes reach. Streaming kernels get close to
// 90 % of HBM peak; decode's many small GEMVs, attention over paged blocks and launch gaps get
// less. 0.8 puts a batch-1 llama3-8b decode on an H100 at ~6 ms of memory time (the 100 % floor
// is 4.8 ms). A modelling choice: calibrate against a measured decode step.
inline constexpr double default_memory_efficiency = 0.8;

// Time per step no roofline sees: scheduling, input preparation, sampling and kernel launches
// the engine does not hide. vLLM's v0.6.0 performance post (blog.vllm.ai/2024/09/05/
// perf-update.html) found CPU-side scheduling and input preparation a large share of a
// Llama-3-8B step on an H100 before overlapping it with GPU work; 0.4 ms is the residual
// assumed after such overlap, comparable to a few dozen un-graphed kernel launches.
inline constexpr double default_step_overhead_s = 0.4e-3;

struct gpu_spec {
  std::string name;                         // a built-in's short name, or the file it came from
  std::string description;                  // e.g. "NVIDIA H100 SXM5 80GB (HBM3), NVLink 4"
  double peak_bf16_flops = 0;               // dense (no 2:4 sparsity), FLOP/s
  double memory_bandwidth_bytes_per_s = 0;  // datasheet peak
  std::uint64_t memory_bytes = 0;           // the total the driver reports
  double link_bandwidth_bytes_per_s = 0;    // NVLink or PCIe, one direction
  double compute_efficiency = default_compute_efficiency;  // in (0, 1]
  double memory_efficiency = default_memory_efficiency;    // in (0, 1]
  double step_overhead_s = default_step_overhead_s;        // >= 0
  // Host work per scheduled sequence per step (scheduling, sampling, streaming the token out):
  // 0 by default; what a calibration fits when step time grows with the batch beyond its bytes.
  double sequence_overhead_s = 0;

  friend bool operator==(const gpu_spec&, const gpu_spec&) = default;
};

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
