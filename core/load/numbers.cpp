#include "load/numbers.hpp"

#include <charconv>
#include <cmath>

#include <fast_float/fast_float.h>

namespace kvscope {

std::string_view describe(number_error e) noexcept {
  switch (e) {
    case number_error::none: return "is fine";
    case number_error::empty: return "is empty";
    case number_error::not_a_number: return "is not a number";
    case number_error::not_finite: return "is not a finite number";
    case number_error::negative: return "is negative";
    case number_error::not_integer: return "is not a whole number";
    case number_error::too_large: return "is too large";
  }
  return "is wrong";
}

number_error parse_finite(std::string_view text, double& out) noexcept {
  if (text.empty()) return number_error::empty;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = fast_float::from_chars(text.data(), end, out);
  if (ptr != end) return number_error::not_a_number;
  if (ec == std::errc::result_out_of_range || !std::isfinite(out)) return number_error::not_finite;
  if (ec != std::errc{}) return number_error::not_a_number;
  return number_error::none;
}

number_error parse_whole(std::string_view text, std::uint64_t max, std::uint64_t& out) noexcept {
  if (text.empty()) return number_error::empty;
  const char* end = text.data() + text.size();
  // The common case, plain digits, takes the integer path.
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  if (ptr == end && ec == std::errc{}) return out <= max ? number_error::none : number_error::too_large;
  if (ptr == end && ec == std::errc::result_out_of_range) return number_error::too_large;
  double value = 0;
  const number_error e = parse_finite(text, value);
  if (e != number_error::none) return e;
  if (value < 0) return number_error::negative;
  if (value != std::floor(value)) return number_error::not_integer;
  if (value >= 0x1.0p64 || value > static_cast<double>(max)) return number_error::too_large;
  out = static_cast<std::uint64_t>(value);
  return number_error::none;
}

}  // namespace kvscope
