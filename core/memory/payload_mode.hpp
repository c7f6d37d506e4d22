#pragma once
// What a block pool stores per token: the K/V values themselves, or only their byte counts.
#include <cstdint>

namespace kvscope {

enum class payload_mode : std::uint8_t {
  data,        // real K/V values: quantized, measured for quality
  accounting,  // bytes counted, nothing stored: the same schedule, much faster
};

}  // namespace kvscope
