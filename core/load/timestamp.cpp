#include "load/timestamp.hpp"

namespace kvscope {
namespace {

// Reads exactly `n` digits at `pos`; false if any is not a digit.
bool digits(std::string_view s, std::size_t pos, std::size_t n, unsigned& out) noexcept {
  if (pos + n > s.size()) return false;
  unsigned v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned d = static_cast<unsigned>(static_cast<unsigned char>(s[pos + i])) - '0';
    if (d > 9) return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

bool leap(unsigned y) noexcept { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned days_in_month(unsigned y, unsigned m) noexcept {
  constexpr unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : days[m - 1];
}

}  // namespace

std::optional<std::int64_t> parse_timestamp_ns(std::string_view s) noexcept {
  // Fixed part: YYYY-MM-DD HH:MM:SS is 19 characters.
  unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
      s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  if (!digits(s, 0, 4, year) || !digits(s, 5, 2, month) || !digits(s, 8, 2, day) ||
      !digits(s, 11, 2, hour) || !digits(s, 14, 2, minute) || !digits(s, 17, 2, second)) {
    return std::nullopt;
  }
  // Years outside [1970, 2200] are typos, and keep nanoseconds (and their differences) in int64.
  if (year < 1970 || year > 2200 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 60) {  // 60: a leap second, counted as the next second's start
    return std::nullopt;
  }
  std::size_t pos = 19;
  std::int64_t nanos = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    std::int64_t scale = 100000000;
    const std::size_t first = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      nanos += (s[pos] - '0') * scale;  // digits past the ninth are below a nanosecond: dropped
      scale /= 10;
      ++pos;
    }
    if (pos == first) return std::nullopt;
  }
  std::int64_t offset_s = 0;
  if (pos < s.size()) {
    if (s[pos] == 'Z' && pos + 1 == s.size()) {
      pos = s.size();
    } else if (s[pos] == '+' || s[pos] == '-') {
      const bool minus = s[pos] == '-';
      unsigned oh = 0, om = 0;
      const std::size_t colon = s.size() == pos + 6 ? 1 : 0;
      if (s.size() != pos + 5 + colon || !digits(s, pos + 1, 2, oh) ||
          (colon && s[pos + 3] != ':') || !digits(s, pos + 3 + colon, 2, om) || oh > 23 || om > 59) {
        return std::nullopt;
      }
      offset_s = (minus ? -1 : 1) * static_cast<std::int64_t>(oh * 3600 + om * 60);
      pos = s.size();
    } else {
      return std::nullopt;
    }
  }
  const std::int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 +
                               minute * 60 + second - offset_s;
  return seconds * 1000000000 + nanos;
}

}  // namespace kvscope
