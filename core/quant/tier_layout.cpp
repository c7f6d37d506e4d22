#include "quant/tier_layout.hpp"

#include <cassert>

namespace kvscope {

tier_layout block_layout(precision p, std::uint64_t elements, std::uint64_t side_bytes) noexcept {
  assert(elements > 0 && elements % group_size == 0);
  const std::uint64_t groups = elements / group_size;
  const double fp16_bytes = static_cast<double>(groups * payload_bytes_per_group(precision::fp16));
  tier_layout layout;
  layout.tier = p;
  layout.slots_per_frame = slots_per_frame(p);
  layout.payload_bytes = groups * payload_bytes_per_group(p);
  layout.scale_bytes = groups * scale_bytes_per_group(p) + side_bytes;
  layout.nominal_factor = static_cast<double>(layout.payload_bytes) / fp16_bytes;
  layout.effective_factor = static_cast<double>(layout.total_bytes()) / fp16_bytes;
  return layout;
}

}  // namespace kvscope
