#include "sweep/decimal_range.hpp"

#include <cstdint>
#include <limits>

namespace kvscope {
namespace {

// A decimal as an integer and a count of digits after the point: 0.05 = {5, 2}.
struct decimal {
  std::int64_t digits = 0;
  int scale = 0;
  std::string unit;  // what follows the number ("MiB"), verbatim
};

constexpr int max_scale = 15;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<decimal> parse_decimal(std::string_view text) {
  decimal d;
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  bool any = false, point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (!is_digit(c)) break;
    any = true;
    if (d.digits > (std::numeric_limits<std::int64_t>::max() - 9) / 10) return std::nullopt;
    d.digits = d.digits * 10 + (c - '0');
    if (point && ++d.scale > max_scale) return std::nullopt;
  }
  if (!any) return std::nullopt;
  d.unit = std::string(text.substr(i));
  for (char c : d.unit) {
    if (is_digit(c) || c == '.' || c == ':') return std::nullopt;
  }
  if (negative) d.digits = -d.digits;
  return d;
}

// digits × 10^(to - scale), or nullopt on overflow.
std::optional<std::int64_t> rescale(const decimal& d, int to) {
  std::int64_t v = d.digits;
  for (int s = d.scale; s < to; ++s) {
    if (v > std::numeric_limits<std::int64_t>::max() / 10 || v < std::numeric_limits<std::int64_t>::min() / 10) {
      return std::nullopt;
    }
    v *= 10;
  }
  return v;
}

// v / 10^scale written out, trailing zeros of the fraction dropped.
std::string format_decimal(std::int64_t v, int scale) {
  const bool negative = v < 0;
  std::string digits = std::to_string(negative ? -v : v);
  if (scale > 0) {
    if (digits.size() <= static_cast<std::size_t>(scale)) {
      digits.insert(0, static_cast<std::size_t>(scale) + 1 - digits.size(), '0');
    }
    digits.insert(digits.size() - static_cast<std::size_t>(scale), ".");
    while (digits.back() == '0') digits.pop_back();
    if (digits.back() == '.') digits.pop_back();
  }
  return (negative && digits != "0" ? "-" : "") + digits;
}

std::vector<std::string_view> split_colons(std::string_view text) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const auto colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) return parts;
    start = colon + 1;
  }
}

bool starts_like_number(std::string_view part) {
  std::size_t i = part.starts_with('-') || part.starts_with('+') ? 1 : 0;
  if (i < part.size() && part[i] == '.') ++i;
  return i < part.size() && is_digit(part[i]);
}

}  // namespace

bool looks_like_range(std::string_view text) {
  const auto parts = split_colons(text);
  return parts.size() == 3 && starts_like_number(parts[0]) && starts_like_number(parts[1]);
}

expected<std::vector<std::string>, std::string> expand_range(std::string_view text) {
  const std::string quoted = "'" + std::string(text) + "'";
  const auto parts = split_colons(text);
  if (parts.size() != 3) return unexpected{quoted + ": expected FIRST:LAST:STEP"};
  const char* names[] = {"first value", "last value", "step"};
  decimal d[3];
  for (int i = 0; i < 3; ++i) {
    auto parsed = parse_decimal(parts[static_cast<std::size_t>(i)]);
    if (!parsed) {
      return unexpected{quoted + ": the " + names[i] + " '" + std::string(parts[static_cast<std::size_t>(i)]) +
                        "' is not a decimal number (at most 15 digits after the point, no exponent)"};
    }
    d[i] = std::move(*parsed);
  }
  if (d[0].unit != d[1].unit) {
    return unexpected{quoted + ": the first and last values have different units ('" + d[0].unit +
                      "', '" + d[1].unit + "')"};
  }
  if (!d[2].unit.empty() && d[2].unit != d[0].unit) {
    return unexpected{quoted + ": the step's unit '" + d[2].unit + "' is not the values' ('" + d[0].unit + "')"};
  }
  int scale = 0;
  for (const auto& x : d) scale = std::max(scale, x.scale);
  const auto first = rescale(d[0], scale), last = rescale(d[1], scale), step = rescale(d[2], scale);
  if (!first || !last || !step) return unexpected{quoted + ": numbers too large"};
  if (*step == 0) return unexpected{quoted + ": the step must not be 0"};
  if ((*last - *first) != 0 && ((*last > *first) != (*step > 0))) {
    return unexpected{quoted + ": the step goes away from the last value"};
  }
  // Both differences are below 2^63 in magnitude: the numbers have at most 18 digits.
  const auto span = static_cast<double>(*last - *first);
  if (span / static_cast<double>(*step) + 1 > static_cast<double>(max_range_values)) {
    return unexpected{quoted + ": more than " + std::to_string(max_range_values) + " values"};
  }
  const std::int64_t count = (*last - *first) / *step + 1;
  std::vector<std::string> values;
  values.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    values.push_back(format_decimal(*first + i * *step, scale) + d[0].unit);
  }
  return values;
}

}  // namespace kvscope
