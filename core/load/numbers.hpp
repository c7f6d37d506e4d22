#pragma once
// Strict whole-field number parsing shared by the trace readers and the gen: spec parser
// (std::from_chars and fast_float: locale-free and fast enough for the hot loop).
#include <cstdint>
#include <string_view>

namespace kvscope {

enum class number_error { none, empty, not_a_number, not_finite, negative, not_integer, too_large };

// Human words for an error, e.g. "is not a number".
std::string_view describe(number_error e) noexcept;

// A finite decimal number filling all of `text` (leading '+' not allowed, as in JSON).
number_error parse_finite(std::string_view text, double& out) noexcept;

// A whole number in [0, max] filling all of `text`. "12", "12.0" and "1.2e3" are whole numbers;
// "-3", "1.5", "0x10" are not.
number_error parse_whole(std::string_view text, std::uint64_t max, std::uint64_t& out) noexcept;

}  // namespace kvscope
