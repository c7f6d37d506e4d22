#pragma once
// A tour as plain text: a header naming the scenario, then per step its number and title, the
// narration, the numbers it shows, and the state in numbers (pool, bytes per level, policy,
// counters, measured error, every block table and the cached blocks). What `kvscope-cli tour`
// prints, and what the tests read.
#include <cstddef>
#include <string>

#include "tour/tour_run.hpp"

namespace kvscope {

std::string format_tour_header(const tour_run& run);
std::string format_tour_step(const tour_run& run, std::size_t index);
// What a step highlights, in words: "request B; blocks #0 #1 #2" (empty when nothing).
std::string format_tour_focus(const tour_frame& frame);
// The header and every step.
std::string format_tour_text(const tour_run& run);

// `text` broken into lines of at most `width` characters (at spaces), each after `indent`.
std::string wrap_text(std::string_view text, std::size_t width, std::string_view indent = {});

}  // namespace kvscope
