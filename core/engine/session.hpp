#pragma once
// A session file: everything needed to reproduce a run exactly — the load, the engine options
// (model, budget, initial policy, ...) and the command log with the step each command was
// applied before. Replaying it gives bit-identical metrics (DESIGN.md §5). JSON, versioned.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/commands.hpp"
#include "engine/engine.hpp"
#include "load/open_load.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct session {
  std::string load_spec;  // a trace path or a "gen:" spec
  load_format format = load_format::automatic;
  bool skip_bad_rows = false;
  engine_options options;
  std::vector<logged_command> commands;
  std::uint64_t steps = 0;  // steps the final engine ran when saved; 0 = run to the end
};

inline constexpr int session_format_version = 1;

std::string session_to_json(const session& s);
// Errors name the source and the offending field: "FILE: field 'options.budget_bytes': ...".
expected<session, std::string> session_from_json(std::string_view text, std::string_view source);
expected<session, std::string> read_session(const std::filesystem::path& path);
expected<void, std::string> write_session(const std::filesystem::path& path, const session& s);

// Opens the session's load afresh (throws load_error).
std::unique_ptr<request_source> open_session_load(const session& s);

// Runs the session: a fresh engine, each logged command applied before the step it names, until
// the logged step count (or the end of the load). `on_step` sees every step's engine.
// Returns the final engine. Throws load_error / std::invalid_argument like engine's constructor.
std::unique_ptr<engine> replay(const session& s,
                               const std::function<void(const engine&)>& on_step = {});

// Applies one logged command to a batch run (reconfigure and reset; play, pause, step and speed
// only matter to a live runner). `remake` builds the fresh engine a reset needs.
void apply_to_engine(const runner_command& command, std::unique_ptr<engine>& e,
                     const std::function<std::unique_ptr<engine>()>& remake);

}  // namespace kvscope
