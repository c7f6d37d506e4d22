#pragma once
// The expected failures of the paged cache, as values (docs/ARCHITECTURE.md, "Paged memory").
#include <cstdint>
#include <string_view>

namespace kvscope {

enum class cache_error : std::uint8_t {
  sequence_not_found,     // no live sequence with that id
  out_of_memory,          // the budget cannot hold the requested blocks; nothing was changed
  position_out_of_range,  // outside the allocated blocks (write) or the written tokens (read)
  dimension_mismatch,     // K/V span size is not kv_heads x head_dim, or layer >= layers
};

// "sequence not found", "out of memory", "position out of range", "dimension mismatch".
std::string_view describe(cache_error error) noexcept;

}  // namespace kvscope
