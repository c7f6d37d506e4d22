#pragma once
// Running a tour: one engine on the script's scenario, run forward once, step after step, and
// at the end of each tour step everything shown of it is kept — the state in numbers, what it
// highlights, and the snapshot the GUI draws (pool view, metrics so far, policy). Going back is
// showing a kept step again, so Back is exact by construction; the engine is deterministic, so
// a fresh engine run to a step's engine step count gives that step's state again
// (tour_state_at, which the tests use to check exactly that).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "run/snapshot.hpp"
#include "tour/tour_script.hpp"
#include "tour/tour_state.hpp"

namespace kvscope {

// A step's highlight resolved against its state.
struct tour_focus {
  std::vector<block_id> blocks;          // blocks to ring
  std::vector<sequence_id> sequences;    // running sequences of the highlighted requests
  std::vector<std::string> absent;       // highlighted requests not running now
  friend bool operator==(const tour_focus&, const tour_focus&) = default;
};

struct tour_frame {
  tour_state state;
  tour_focus focus;
  std::vector<std::string> numbers;  // the step's `show` quantities, formatted
  std::shared_ptr<const engine_snapshot> snapshot;
};

struct tour_run {
  tour_script script;
  std::vector<tour_frame> frames;  // frames[i]: the state after script.steps[i]
};

// Runs every step of `script`. Errors name the step that cannot be reached, e.g.
// "tour.json: steps[3].until: not reached within 2000 engine steps (...)" or one that the load
// ends before; options the engine refuses give "tour.json: engine: <why>".
expected<tour_run, std::string> run_tour(const tour_script& script);

// A fresh engine on the script's scenario (throws std::invalid_argument and load_error).
std::unique_ptr<engine> make_tour_engine(const tour_script& script);

// A fresh engine run `engine_steps` steps: the state any tour step at that count shows.
tour_state tour_state_at(const tour_script& script, std::uint64_t engine_steps);

tour_focus resolve_focus(const tour_highlight& highlight, const tour_state& state);

}  // namespace kvscope
