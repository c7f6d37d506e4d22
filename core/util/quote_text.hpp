#pragma once
// Quoting input in a one-line message. Every message that shows text taken from a file or a
// command line goes through here, so a 30 MB line or binary garbage never floods or garbles a
// terminal.
#include <cstddef>
#include <string>
#include <string_view>

namespace kvscope {

// `text` in single quotes, made safe for a one-line message: control bytes, non-ASCII bytes and
// the quote itself as \xNN; at most `max_shown` bytes shown, a longer text cut as
// 'first bytes...' (N bytes).
std::string quote_for_message(std::string_view text, std::size_t max_shown = 80);

}  // namespace kvscope
