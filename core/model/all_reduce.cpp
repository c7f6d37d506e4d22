#include "model/all_reduce.hpp"

namespace kvscope {

all_reduce_algorithm all_reduce_algorithm_for(double bytes, std::uint32_t tp) noexcept {
  if (tp < 2 || !(bytes > 0)) return all_reduce_algorithm::none;
  if (tp > 8 || bytes >= custom_all_reduce_max_bytes) return all_reduce_algorithm::nccl_ring;
  // The same conditions as vLLM's CustomAllreduce::allreduce (every GPU pair on NVLink).
  const bool one_stage = tp == 2 || (tp <= 4 && bytes < 512.0 * 1024) || bytes < 256.0 * 1024;
  return one_stage ? all_reduce_algorithm::one_stage : all_reduce_algorithm::two_stage;
}

double all_reduce_seconds(double bytes, std::uint32_t tp, double link_bytes_per_s) noexcept {
  const double n = tp;
  const double ring_bytes = 2.0 * (n - 1.0) / n * bytes;  // what each GPU sends in a ring
  switch (all_reduce_algorithm_for(bytes, tp)) {
    case all_reduce_algorithm::none:
      return 0.0;
    case all_reduce_algorithm::one_stage:
      return custom_all_reduce_one_stage_latency_s +
             (n - 1.0) * bytes / (custom_all_reduce_link_share * link_bytes_per_s);
    case all_reduce_algorithm::two_stage:
      return custom_all_reduce_two_stage_latency_s +
             ring_bytes / (custom_all_reduce_link_share * link_bytes_per_s);
    case all_reduce_algorithm::nccl_ring:
      return custom_all_reduce_two_stage_latency_s + ring_bytes / (nccl_ring_link_share * link_bytes_per_s);
  }
  return 0.0;
}

}  // namespace kvscope
