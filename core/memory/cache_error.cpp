#include "memory/cache_error.hpp"

namespace kvscope {

std::string_view describe(cache_error error) noexcept {
  switch (error) {
    case cache_error::sequence_not_found: return "sequence not found";
    case cache_error::out_of_memory: return "out of memory";
    case cache_error::position_out_of_range: return "position out of range";
    case cache_error::dimension_mismatch: return "dimension mismatch";
  }
  return "unknown error";
}

}  // namespace kvscope
