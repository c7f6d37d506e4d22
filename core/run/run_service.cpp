#include "run/run_service.hpp"

#include <chrono>

#include "load/resampled_arrivals.hpp"
#include "run/command_script.hpp"
#include "util/number_text.hpp"

namespace kvscope {
namespace {

using wall_clock = std::chrono::steady_clock;

double seconds_since(wall_clock::time_point start) {
  return std::chrono::duration<double>(wall_clock::now() - start).count();
}

run_progress progress_of(const engine& e, double wall_seconds) {
  const auto& t = e.totals();
  return {e.steps_done(), e.sim_time_s(), t.requests_finished + t.requests_rejected,
          t.requests_total, e.load_progress(), wall_seconds};
}

// The load as the summary names it: a scaled load is not the trace's own rate, and resampled
// arrivals are not its own times.
std::string described_load(const run_description& run) {
  const auto process = parse_arrival_process(run.options.arrivals);
  const std::string resampled = process ? describe_arrival_process(*process) : "";
  std::string text = run.load_spec;
  if (run.arrival_time_scale != 1.0) {
    text += " at " + format_significant(1 / run.arrival_time_scale, 4) + "x its arrival rate";
    text += resampled.empty() ? " (arrival times scaled, bursts kept)" : "";
  }
  if (!resampled.empty()) {
    text += ", arrivals resampled as " + resampled +
            (run.arrival_time_scale != 1.0 ? " at that mean rate" : " at the same mean rate");
  }
  return text;
}

}  // namespace

run_result run_to_end(const run_description& run, const run_hooks& hooks) {
  const auto start = wall_clock::now();
  const engine_maker remake = [&] {
    auto fresh = make_engine(run);
    if (hooks.on_request) fresh->on_request_done(hooks.on_request);
    return fresh;
  };
  run_result result;
  auto e = remake();
  command_script script(run.commands);
  double next_progress = hooks.progress_interval_s;
  // Reading the clock every step would cost more than a step: look every 1024 steps.
  constexpr std::uint64_t clock_every = 1024;
  for (;;) {
    script.apply_due(e, false, [&](const runner_command& c) { apply_to_engine(c, e, remake); });
    if (script.done() && run.steps > 0 && e->steps_done() >= run.steps) break;
    if (hooks.cancel && hooks.cancel->load(std::memory_order_relaxed)) {
      result.cancelled = true;
      break;
    }
    if (!e->step()) {
      if (script.done()) break;
      continue;  // the rest of the log is due now
    }
    if (hooks.on_step) hooks.on_step(*e);
    if (hooks.on_progress && e->steps_done() % clock_every == 0) {
      const double wall = seconds_since(start);
      if (wall >= next_progress) {
        next_progress = wall + hooks.progress_interval_s;
        hooks.on_progress(progress_of(*e, wall));
      }
    }
  }
  result.summary = summarize(*e, described_load(run), seconds_since(start));
  result.final_engine = std::move(e);
  return result;
}

run_result run_to_end(const engine_options& options, std::unique_ptr<request_source> load,
                      const run_hooks& hooks) {
  const auto start = wall_clock::now();
  auto e = std::make_unique<engine>(options, std::move(load));
  if (hooks.on_request) e->on_request_done(hooks.on_request);
  run_result result;
  while (!(hooks.cancel && hooks.cancel->load(std::memory_order_relaxed)) && e->step()) {
    if (hooks.on_step) hooks.on_step(*e);
  }
  result.cancelled = !e->finished();
  result.summary = summarize(*e, "(requests given in memory)", seconds_since(start));
  result.final_engine = std::move(e);
  return result;
}

run_result run_to_end(const run_description& run, const std::function<void(const engine&)>& on_step) {
  run_hooks hooks;
  hooks.on_step = on_step;
  return run_to_end(run, hooks);
}

}  // namespace kvscope
