#pragma once
// "Did you mean": the known name a mistyped one most likely meant, for error messages that
// refuse a name (a metric, a column, an option).
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kvscope {

// The candidate closest to `typed`, or nothing when none is close. Names are compared as words
// (split at '.', '_', '-' and spaces, case-insensitive, "ms"/"us" read as "s", so vLLM's
// p99_ttft_ms finds latency.ttft_s.p99): most words in common wins, then the smaller edit
// distance. A candidate sharing no word but the unit is close only within an edit distance of a
// third of the name (q8_treshold → q8_threshold; foo is close to nothing).
std::optional<std::string> closest_name(std::string_view typed, std::span<const std::string_view> candidates);
std::optional<std::string> closest_name(std::string_view typed, std::span<const std::string> candidates);

// " (did you mean 'NAME'?)", or "" when no candidate is close: to append to an error.
std::string did_you_mean(std::string_view typed, std::span<const std::string_view> candidates);
std::string did_you_mean(std::string_view typed, std::span<const std::string> candidates);

}  // namespace kvscope
