#pragma once
// The flags that describe a run, shared by simulate, sweep and tune: the load (--load, --format,
// --skip-bad-rows), the policy (--policy FILE or --preset NAME) and every option of the option
// table shown at a place (run_option_flags), turned into a run_description.
#include <string>

#include "io/trace_checksum.hpp"  // load_file_of, for the checks that no output replaces an input
#include "load_options.hpp"
#include "output_checks.hpp"
#include "run/run_description.hpp"
#include "run_option_flags.hpp"
#include "util/expected.hpp"

namespace CLI {
class App;
}

namespace kvscope::cli {

struct run_base_flags {
  load_options load;
  std::string policy_path;
  std::string preset;
  run_option_flags flags;

  // Adds the flags to `cmd`; option-table flags of `place` with `defaults` in their help.
  void add_to(CLI::App& cmd, unsigned place, const engine_options& defaults = {});
  // The run they describe, its options resolved once into run.setup (the engine reads no model
  // or GPU file again); the error names the flag or file (exit 2).
  expected<run_description, std::string> build(const engine_options& defaults = {}) const;
  // The options given, as typed ("--budget 16MiB"), for a provenance.
  std::vector<std::string> typed() const;
  // Every file the run reads — the trace, --policy, --calibration, a --model or --gpu file —
  // for check_outputs: no output may replace one of them.
  std::vector<named_path> file_inputs() const;
};

// Reads a trace once before a long run, so a bad row or an impossible length is refused with
// its file, line and field before any long work (generated loads are checked by their spec).
// Returns the exit code: exit_ok, or the error's after printing it.
int check_trace(const run_description& run);

}  // namespace kvscope::cli
