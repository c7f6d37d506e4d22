#pragma once
// The time of one tensor-parallel all-reduce as vLLM runs it: a latency plus bytes over the
// bandwidth the kernel reaches, with the algorithm vLLM picks for the size and the group.
//
// vLLM reduces messages under 8 MiB with its own all-reduce (csrc/custom_all_reduce.cuh, from
// vLLM PR #2192), which picks by size and group:
//   one stage   (tp 2; tp <= 4 under 512 KiB; tp <= 8 under 256 KiB): every GPU reads the whole
//               message from each of its tp - 1 peers and sums: (tp - 1) x bytes over its link;
//   two stages  (otherwise): a reduce-scatter then an all-gather, 2 (tp - 1) / tp x bytes, with a
//               barrier before each stage.
// Larger messages, and groups over 8 GPUs, go to NCCL's ring: 2 (tp - 1) / tp x bytes.
//
// The figures are measured, not fitted to kvscope's points: vLLM's custom all-reduce on 8 H100
// SXM (sgl-project/sglang PR #2904, "unit test performance in H100": 6 sizes from 2 KB to 4 MB in
// groups of 2, 4 and 8 GPUs). A least-squares fit of latency + bytes / bandwidth to each
// algorithm's points gives 8.70 us and 238 GB/s for one stage, 15.23 us and 249 GB/s for two.
// Those bandwidths are 53-55 % of the H100's 450 GB/s NVLink (one direction); kvscope takes 0.54
// of each GPU's link_bandwidth_bytes_per_s for both (all 18 published points within 13.3 % then)
// and the H100's latencies for every GPU (no such measurement of the A100 was found). NCCL's ring
// reaches about 370 of the 450 GB/s on NVLink (its maintainer, NVIDIA/nccl-tests issue #212):
// 0.82 of the link; for its latency kvscope takes the two-stage kernel's, a floor (vLLM wrote its
// own kernel because NCCL's small messages are slower), small beside 8 MiB at that rate (23 us at
// tp 2).
#include <cstdint>

namespace kvscope {

// vLLM's custom all-reduce handles messages below this many bytes (its max_size).
inline constexpr double custom_all_reduce_max_bytes = 8.0 * 1024 * 1024;
inline constexpr double custom_all_reduce_one_stage_latency_s = 8.70e-6;
inline constexpr double custom_all_reduce_two_stage_latency_s = 15.23e-6;
// Shares of the link bandwidth (one direction) the custom all-reduce and NCCL's ring reach.
inline constexpr double custom_all_reduce_link_share = 0.54;
inline constexpr double nccl_ring_link_share = 0.82;

enum class all_reduce_algorithm : std::uint8_t { none, one_stage, two_stage, nccl_ring };

// What vLLM runs for `bytes` over `tp` GPUs: none for tp 1 or nothing to send.
all_reduce_algorithm all_reduce_algorithm_for(double bytes, std::uint32_t tp) noexcept;

// Seconds one all-reduce of `bytes` takes over `tp` GPUs whose links carry
// `link_bytes_per_s` each way; 0 for tp 1 or no bytes.
double all_reduce_seconds(double bytes, std::uint32_t tp, double link_bytes_per_s) noexcept;

}  // namespace kvscope
