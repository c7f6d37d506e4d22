#pragma once
// The one way to run a load to the end: the CLI's simulate and replay, benchmarks, sweeps and
// tests call run_to_end(); the GUI runs the same description live through a runner
// (run/runner.hpp). Both apply the run's command log with command_script.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "engine/engine.hpp"
#include "run/run_description.hpp"
#include "run/run_summary.hpp"

namespace kvscope {

// Where a run stands, for progress lines and bars.
struct run_progress {
  std::uint64_t steps = 0;
  double sim_time_s = 0;
  std::uint64_t requests_done = 0;   // finished or rejected
  std::uint64_t requests_seen = 0;   // arrived so far
  double load_fraction = -1;         // share of the load read, in [0, 1]; -1 when unknown
  double wall_seconds = 0;
};

struct run_hooks {
  std::function<void(const engine&)> on_step;               // after every step
  std::function<void(const run_progress&)> on_progress;     // about every progress_interval_s
  double progress_interval_s = 0.25;
  const std::atomic<bool>* cancel = nullptr;  // checked between steps; true stops the run
  // Each request's outcome as it finishes or is rejected, in completion order.
  std::function<void(const request_record&)> on_request;
};

struct run_result {
  std::unique_ptr<engine> final_engine;
  run_summary summary;
  bool cancelled = false;
};

// Runs `run` on a fresh engine, applying its command log, until the load is done (or the
// logged step count, or cancel). Throws load_error for a load that fails and
// std::invalid_argument for options validate() refuses.
run_result run_to_end(const run_description& run, const run_hooks& hooks = {});
// A load given as a source rather than a spec (a calibration's subset, a test's requests); no
// command log. The source is read once: a run needing a reset must use a run_description.
run_result run_to_end(const engine_options& options, std::unique_ptr<request_source> load,
                      const run_hooks& hooks = {});
// The same with only an on_step hook.
run_result run_to_end(const run_description& run, const std::function<void(const engine&)>& on_step);

}  // namespace kvscope
