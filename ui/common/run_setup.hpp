#pragma once
// What the app runs is a session (core's session file: the load, the engine options and a
// command log): the built-in demo is one, an opened trace or a new seed makes another, a saved
// session is read back as one. This turns a session into a live runner and back, and runs one
// headless for the summary printed without a display. No Qt here.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "run/runner.hpp"
#include "io/session_file.hpp"

namespace kvscope::ui {

// The built-in demo: a generated load on the tiny model in 16 MiB with real K/V bytes, whose
// pressure climbs through q8 and q4 and falls back to fp16 within the first minute when paced
// at demoStepsPerSecond (about 2,900 steps).
inline constexpr const char* demoLoadSpec =
    "gen:rate=6,prompt=lognormal:700:0.5,output=uniform:500:0.6,duration=25,seed=1";
inline constexpr double demoStepsPerSecond = 60;
run_description demoSession();

// True for a "gen:" spec (a generated load), false for a trace path.
bool isGenerated(const run_description& s);

// The seed a run shows: the generator's for a "gen:" spec, else the K/V data seed.
std::uint64_t seedOf(const run_description& s);
// The same run from another seed: the generator's `seed=` (for a "gen:" spec that parses) and
// the synthetic K/V data seed. The command log is dropped: it is a new run.
run_description reseeded(run_description s, std::uint64_t seed);

// How the app runs an engine: playing at `stepsPerSecond` (0 = flat out), a snapshot every
// 25 ms (a little faster than the window's 33 ms poll, so every poll finds a new one), its
// parallel work on every core (measured with gui_bench: on 2 cores this beats leaving the
// window a core of its own, which the GUI thread uses 8-10 % of).
runner_options liveRunnerOptions(double stepsPerSecond);

// A live runner for `s`: the engine is made from its options and load (again on every reset),
// and its command log is replayed as the runner's script, pausing at its saved step.
// Throws what engine's constructor and open_load throw (std::invalid_argument, load_error).
std::unique_ptr<runner> makeRunner(const run_description& s, runner_options options);

// The session a run has become: `started` with the snapshot's command log and step.
run_description sessionAt(run_description started, const engine_snapshot& snapshot);

// A budget as the CLI takes it: "16MiB" when that is exact, else the byte count.
std::string budgetText(std::uint64_t bytes);

// The KV budget a run gets: its option, or what `auto` (stored as 0) chooses on its GPU; 0 when
// `auto` cannot be resolved (no GPU).
std::uint64_t resolvedBudget(const engine_options& options);

// A budget for people: "16 GiB", or "auto: 54.69 GiB" when the option is auto.
std::string budgetLabel(const engine_options& options);

// The kvscope-cli command that runs the same thing headless.
std::string cliEquivalent(const run_description& s);

// Runs `s` headless to its saved step (or to the end of the load) as `kvscope-cli simulate` /
// `replay` do, and returns the level changes and the summary as text. Throws like makeRunner.
std::string headlessReport(const run_description& s, std::size_t maxTransitionLines = 16);

}  // namespace kvscope::ui
