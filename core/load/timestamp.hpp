#pragma once
// Civil timestamps of the Azure traces, parsed by hand: the hot loop of a 1 GB trace cannot
// afford strptime, locales or time zone databases.
#include <cstdint>
#include <optional>
#include <string_view>

namespace kvscope {

// Days from 1970-01-01 to the given proleptic Gregorian date (Hinnant's days_from_civil).
// Precondition: 1 <= month <= 12, 1 <= day <= 31.
constexpr std::int64_t days_from_civil(std::int64_t year, unsigned month, unsigned day) noexcept {
  year -= month <= 2;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto yoe = static_cast<unsigned>(year - era * 400);
  const unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// Parses "YYYY-MM-DD HH:MM:SS[.F…][Z|±HH:MM|±HHMM]" ('T' may replace the space; up to 9 fraction
// digits) into nanoseconds since 1970-01-01 00:00 UTC. No zone means UTC. nullopt when the text is
// anything else, names an impossible date or time, or a year outside [1970, 2200].
std::optional<std::int64_t> parse_timestamp_ns(std::string_view text) noexcept;

}  // namespace kvscope
