#pragma once
// Ranges as people type them in a sweep grid, "FIRST:LAST:STEP" (0.5:0.95:0.05, 8MiB:64MiB:8MiB),
// expanded in exact decimal arithmetic: 0.5:0.95:0.05 gives ten values, the last exactly "0.95",
// never 0.9500000001, and 0.1:0.3:0.1 includes 0.3.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.hpp"

namespace kvscope {

// The most values one range may expand to.
inline constexpr std::size_t max_range_values = 1'000'000;

// True when `text` has the shape of a range (three parts around two colons, the first two
// starting like numbers), so that a value such as a file name or an SLO is not taken for one.
bool looks_like_range(std::string_view text);

// The values FIRST, FIRST+STEP, ... up to LAST (included when the steps land on it), written as
// decimals with no trailing zeros ("0.5", "0.55", ..., "0.95"). A unit after the numbers
// ("8MiB:64MiB:8MiB") must be the same on FIRST and LAST and is kept on every value; STEP may
// omit it. STEP is non-zero and points from FIRST towards LAST. Errors say what is wrong with
// the text, e.g. "'0.5:0.9:0': the step must not be 0".
expected<std::vector<std::string>, std::string> expand_range(std::string_view text);

}  // namespace kvscope
