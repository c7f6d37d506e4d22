#pragma once
// The run a live engine is on: what it will do from its last reset to the end of the load if
// nobody touches it again. A background run of it gives the live run's future steps exactly
// (the engine is deterministic), which is how the GUI finds the moments ahead of the live view.
#include <span>

#include "run/run_description.hpp"

namespace kvscope {

// `started` (load, options and its own command log, which the live runner replays as a script)
// while the front end has sent no reconfigure or reset; after one, `started`'s load and options
// with the reconfigures and resets of `live_log` (the newest snapshot's) after its last reset,
// where the engine's steps count from 0 again. Only commands that act on the engine are kept;
// the result runs to the end of the load (steps = 0).
run_description run_ahead(run_description started, std::span<const logged_command> live_log,
                          bool front_end_changed);

// Whether a reset_command, after which the front end re-applies `config` at step 0 when it is
// not the started one, makes the engine run `ahead` again step for step: true when every command
// of `ahead` is at step 0 and leaves `config` in force.
bool reset_replays(const run_description& ahead, const policy_config& config);

// The same commands at the same steps (reconfigures with equal configs).
bool same_commands(std::span<const logged_command> a, std::span<const logged_command> b);

}  // namespace kvscope
