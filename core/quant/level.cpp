#include "quant/level.hpp"

namespace kvscope {

std::string_view tag(precision p) noexcept {
  switch (p) {
    case precision::fp16: return "fp16";
    case precision::q8: return "q8";
    case precision::fp8: return "fp8";
    case precision::q4: return "q4";
    case precision::q3: return "q3";
  }
  return "?";
}

std::optional<precision> parse_precision(std::string_view text) noexcept {
  for (precision p : all_precisions) {
    if (tag(p) == text) return p;
  }
  return std::nullopt;
}

}  // namespace kvscope
