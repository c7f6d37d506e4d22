#include "util/byte_size.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace kvscope {

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  double number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc{} || !std::isfinite(number) || number < 0) return std::nullopt;
  std::string unit(end, text.data() + text.size());
  unit.erase(std::remove_if(unit.begin(), unit.end(),
                            [](unsigned char c) { return std::isspace(c); }),
             unit.end());
  std::transform(unit.begin(), unit.end(), unit.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  struct named_unit {
    std::string_view name;
    double factor;
  };
  static constexpr named_unit units[] = {
      {"", 1},           {"b", 1},
      {"k", 1024.0},     {"kib", 1024.0},     {"kb", 1e3},
      {"m", 1048576.0},  {"mib", 1048576.0},  {"mb", 1e6},
      {"g", 1073741824.0}, {"gib", 1073741824.0}, {"gb", 1e9},
      {"t", 1099511627776.0}, {"tib", 1099511627776.0}, {"tb", 1e12},
  };
  for (const auto& u : units) {
    if (u.name != unit) continue;
    const double bytes = std::round(number * u.factor);
    if (bytes >= 18446744073709551615.0) return std::nullopt;
    return static_cast<std::uint64_t>(bytes);
  }
  return std::nullopt;
}

std::string format_byte_size(std::uint64_t bytes) {
  static constexpr const char* names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 5) {
    value /= 1024.0;
    ++unit;
  }
  char buf[48];
  if (unit == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else if (value == std::floor(value)) {
    std::snprintf(buf, sizeof buf, "%.0f %s", value, names[unit]);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f %s", value, names[unit]);
  }
  return buf;
}

}  // namespace kvscope
