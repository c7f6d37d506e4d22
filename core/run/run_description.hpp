#pragma once
// What a run is: the load, the engine options (model, budget, initial policy, ...) and the log
// of commands applied at step boundaries. The run service runs one; a session file stores one
// (io/session_file.hpp) and reads it back unchanged, so a replay gives the same bytes.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine_options.hpp"
#include "load/open_load.hpp"
#include "run/commands.hpp"
#include "util/expected.hpp"

namespace kvscope {

class engine;
struct engine_setup;

struct run_description {
  std::string load_spec;  // a trace path or a "gen:" spec
  load_format format = load_format::automatic;
  bool skip_bad_rows = false;
  engine_options options;
  std::vector<logged_command> commands;  // applied before the step each names, in order
  std::uint64_t steps = 0;  // stop after this many steps once the log is applied; 0 = to the end
  // Every arrival time is multiplied by this (0.5 = the same requests at twice the rate): what
  // a capacity search varies. Applied as the load is read; the load's own files are untouched.
  double arrival_time_scale = 1.0;
  // SHA-256 of the trace file's bytes (64 lowercase hex digits) as a session recorded it; empty
  // for a generated load and for sessions written before kvscope recorded it.
  std::string trace_sha256;
  // The same for the model and GPU when they are given as .json files (options.model and
  // options.gpu then hold paths); empty for built-ins and for sessions older than format 3.
  std::string model_sha256;
  std::string gpu_sha256;
  // `options` resolved (resolve_setup), when the caller has already: make_engine then reads no
  // model or GPU file again. Used only while it was resolved from these very options; a copy
  // whose options change (a sweep's config) resolves its own, from this one's files where the
  // options still name them (resolve_run_setup). Not stored in sessions.
  std::shared_ptr<const engine_setup> setup;
};

// Resolves the run's options into run.setup, unless it already holds them resolved;
// resolve_setup's error otherwise. A setup it holds from other options lends its model and GPU.
expected<void, std::string> resolve_run_setup(run_description& run);

// Opens the run's load afresh, its arrivals resampled as options.arrivals asks (a pass over the
// load first, for its mean rate), then scaled by arrival_time_scale (throws load_error).
std::unique_ptr<request_source> open_run_load(const run_description& run);

// A fresh engine on the run's load, from run.setup when it was resolved from run.options
// (throws load_error, or std::invalid_argument for options that resolve_setup refuses).
std::unique_ptr<engine> make_engine(const run_description& run);

}  // namespace kvscope
