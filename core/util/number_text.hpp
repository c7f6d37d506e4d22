#pragma once
// Numbers as text in the shortest form that reads back as the same value (std::to_chars), for
// every file kvscope writes: metrics CSVs, per-request CSVs, native load lines.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>

namespace kvscope {

// Appends `v` in its shortest round-trip spelling ("0.1", "1e+300", "inf", "nan").
inline void append_shortest(std::string& out, double v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc{} ? end : buf);
}

inline void append_shortest(std::string& out, std::uint64_t v) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc{} ? end : buf);
}

// `v` in its shortest round-trip spelling, as a string.
inline std::string shortest(double v) {
  std::string out;
  append_shortest(out, v);
  return out;
}

// A float in the shortest spelling that reads back as the same float ("0.8", not "0.800000011").
inline std::string shortest(float v) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, ec == std::errc{} ? end : buf);
}

// `v` with `digits` significant digits, for messages people read ("12.3", "4.56e+06").
inline std::string format_significant(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

}  // namespace kvscope
