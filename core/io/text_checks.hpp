#pragma once
// Byte-level rules for the text files kvscope reads and writes, kept apart from any parser so
// that they run before one.
#include <string>
#include <string_view>

#include "util/expected.hpp"

namespace kvscope {

// `text` without the UTF-8 byte-order mark some editors put first (readers accept it).
std::string_view strip_utf8_bom(std::string_view text) noexcept;

// Policy files are printable ASCII (0x20-0x7E) plus tab, CR and LF: anything else is refused
// before a parser sees it, as "SOURCE:LINE:COLUMN: byte 0xCE: policy files are ASCII; write
// non-ASCII as \uXXXX" (line and byte column from 1). Non-ASCII text still fits in strings as
// escapes, which is how the writers put it there.
expected<void, std::string> check_policy_ascii(std::string_view text, std::string_view source);

// `text` with each byte that does not belong to a valid UTF-8 sequence replaced by U+FFFD: what
// both policy writers put in place of such bytes (paths and names need not be UTF-8; JSON and
// TOML documents must be).
std::string valid_utf8(std::string_view text);

// A TOML basic string ("...") holding `text` in ASCII only: quotes, backslashes and control
// characters escaped, every non-ASCII character written as \uXXXX (or \UXXXXXXXX past U+FFFF).
// Bytes that are not UTF-8 cannot be in a TOML document at all; each becomes \uFFFD, as in
// valid_utf8().
std::string toml_ascii_string(std::string_view text);

}  // namespace kvscope
