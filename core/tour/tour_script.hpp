#pragma once
// A guided tour: a scenario (engine options, policy, requests or a generated load) and a list of
// steps, each running the real engine until a condition holds or for a number of steps, with a
// narration, what to highlight and which numbers to show. Written as JSON (docs/tour.md);
// resources/tours/paged-attention.json is the built-in one. Reading a script checks every field
// and names the first bad one: "tour.json: steps[0].narration: expected a string".
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine_options.hpp"
#include "load/request.hpp"
#include "util/expected.hpp"

namespace kvscope {

inline constexpr int tour_format_version = 1;

// One test of a condition: quantity `name` (tour/tour_state.hpp, tour_quantities()) compared
// with `value`. `since_previous`: the change since the previous tour step is compared instead.
// Two tests compare words: "level" (value is the level's ordinal) and "request_running"
// (`request` names a request that must be running).
struct tour_test {
  enum class compare : std::uint8_t { at_least, at_most, equal };
  std::string name;
  compare op = compare::at_least;
  double value = 0;
  std::string request;
  bool since_previous = false;
  friend bool operator==(const tour_test&, const tour_test&) = default;
};

// Run until every test holds (checked before each engine step, so a condition that already
// holds runs no step), at most max_steps engine steps: a script that never gets there is
// refused rather than left running.
struct tour_condition {
  std::vector<tour_test> tests;
  std::uint64_t max_steps = 2000;
  friend bool operator==(const tour_condition&, const tour_condition&) = default;
};

// What a step points at. Requests by name or id; blocks by id (kvscope-cli tour lists them);
// every block at one of `levels`, every cached block, every shared block (refcount > 1).
struct tour_highlight {
  std::vector<std::string> requests;
  std::vector<std::uint32_t> blocks;
  std::vector<precision> levels;
  bool cached = false;
  bool shared = false;
  friend bool operator==(const tour_highlight&, const tour_highlight&) = default;
};

struct tour_step {
  std::string title;
  std::string narration;
  std::optional<std::uint64_t> steps;     // run exactly this many engine steps ...
  std::optional<tour_condition> until;    // ... or until this holds (exactly one of the two)
  tour_highlight highlight;
  std::vector<std::string> show;          // quantities to show beside the narration ("new_X": X's change)
  friend bool operator==(const tour_step&, const tour_step&) = default;
};

struct tour_script {
  std::string source;  // the file name (or "built-in"), for messages
  std::string title;
  engine_options options;
  std::vector<request> requests;  // explicit requests, arrival order ...
  std::string load_spec;          // ... or a "gen:" spec (exactly one of the two)
  std::vector<tour_step> steps;
};

// A request's name as the script gave it (its label), or its id.
std::string request_name(const request& r);

// Errors: "SOURCE: PATH: why", e.g. "tour.json: steps[2].until.level: unknown level 'q5'".
expected<tour_script, std::string> parse_tour_script(std::string_view json, std::string_view source);
// Reads and parses a file; "FILE: cannot open file" when it cannot be read.
expected<tour_script, std::string> read_tour_script(const std::filesystem::path& path);

// The built-in scenario (resources/tours/paged-attention.json, compiled in) and its parse.
std::string_view builtin_tour_json();
tour_script builtin_tour();

}  // namespace kvscope
