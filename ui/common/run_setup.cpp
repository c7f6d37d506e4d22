#include "common/run_setup.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <string>

#include "engine/engine.hpp"
#include "engine/engine_setup.hpp"
#include "run/option_table.hpp"
#include "run/run_service.hpp"
#include "io/summary_format.hpp"
#include "run/run_summary.hpp"
#include "load/generator_spec.hpp"
#include "util/byte_size.hpp"

namespace kvscope::ui {

run_description demoSession() {
  run_description s;
  s.load_spec = demoLoadSpec;
  s.options.model = "tiny";
  s.options.budget_bytes = 16ull << 20;
  s.options.payload = payload_mode::data;
  s.options.seed = 1;
  return s;
}

bool isGenerated(const run_description& s) { return s.load_spec.rfind("gen:", 0) == 0; }

std::uint64_t seedOf(const run_description& s) {
  if (isGenerated(s)) {
    if (const auto spec = parse_generator_spec(s.load_spec)) return spec->seed;
  }
  return s.options.seed;
}

run_description reseeded(run_description s, std::uint64_t seed) {
  if (isGenerated(s)) {
    if (auto spec = parse_generator_spec(s.load_spec)) {
      spec->seed = seed;
      s.load_spec = to_string(*spec);
    }
  }
  s.options.seed = seed;
  s.commands.clear();
  s.steps = 0;
  return s;
}

runner_options liveRunnerOptions(double stepsPerSecond) {
  runner_options o;
  o.start_playing = true;
  o.steps_per_second = stepsPerSecond;
  o.snapshot_interval = std::chrono::milliseconds(25);
  o.max_threads = 0;
  return o;
}

std::unique_ptr<runner> makeRunner(const run_description& s, runner_options options) {
  return start_live_run(s, std::move(options));
}

run_description sessionAt(run_description started, const engine_snapshot& snapshot) {
  started.commands = snapshot.command_log;
  started.steps = snapshot.step;
  return started;
}

std::string budgetText(std::uint64_t bytes) {
  std::string text = format_byte_size(bytes);  // "16 MiB"
  std::erase(text, ' ');
  return parse_byte_size(text) == bytes ? text : std::to_string(bytes);
}

std::uint64_t resolvedBudget(const engine_options& options) {
  if (options.budget_bytes != 0) return options.budget_bytes;
  const auto setup = resolve_setup(options);
  return setup ? setup->budget_bytes : 0;
}

std::string budgetLabel(const engine_options& options) {
  if (options.budget_bytes != 0) return format_byte_size(options.budget_bytes);
  const std::uint64_t bytes = resolvedBudget(options);
  return bytes == 0 ? std::string("auto") : "auto: " + format_byte_size(bytes);
}

std::string cliEquivalent(const run_description& s) {
  // The load, model, budget and payload always, so the line reads on its own; then every other
  // option of the table that is not at kvscope-cli's default (policy, family, GPU, paging...).
  std::string cmd = "kvscope-cli simulate --load '" + s.load_spec + "' --model " + s.options.model +
                    " --budget " + (s.options.budget_bytes == 0 ? std::string("auto") : budgetText(s.options.budget_bytes));
  cmd += s.options.payload == payload_mode::data ? " --payload data" : " --payload accounting";
  if (s.format != load_format::automatic) cmd += " --format " + std::string(format_name(s.format));
  if (s.skip_bad_rows) cmd += " --skip-bad-rows";
  engine_options defaults;
  defaults.model = s.options.model;
  defaults.budget_bytes = s.options.budget_bytes;
  defaults.payload = s.options.payload;
  for (const std::string& flag : differing_flags(s.options, in_simulate, defaults)) {
    const auto space = flag.find(' ');
    const std::string value = space == std::string::npos ? "" : flag.substr(space + 1);
    const bool plain = std::all_of(value.begin(), value.end(), [](unsigned char c) {
      return std::isalnum(c) || std::string_view("._:/=,+-").find(static_cast<char>(c)) != std::string_view::npos;
    });
    cmd += " " + (plain ? flag : flag.substr(0, space) + " '" + value + "'");
  }
  return cmd;
}

std::string headlessReport(const run_description& s, std::size_t maxTransitionLines) {
  std::string out;
  char line[200];
  std::size_t shown = 0;
  precision last = s.options.policy.min_level;
  bool first = true;
  const auto onStep = [&](const engine& e) {
    const step_metrics& m = e.last_metrics();
    if (first) {
      first = false;
      last = m.level;
    }
    if (m.level == last) return;
    if (shown++ < maxTransitionLines) {
      std::snprintf(line, sizeof line, "  step %6llu  t = %6.1f s  EWMA %.3f  %s -> %s\n",
                    static_cast<unsigned long long>(m.step), m.sim_time_s, m.pressure_ewma,
                    std::string(tag(last)).c_str(), std::string(tag(m.level)).c_str());
      out += line;
    }
    last = m.level;
  };
  run_hooks hooks;
  hooks.on_step = onStep;
  const auto result = run_to_end(s, hooks);
  if (shown > maxTransitionLines) {
    out += "  ... " + std::to_string(shown - maxTransitionLines) + " more level changes\n";
  }
  return (shown ? "level changes:\n" + out : std::string("no level changes\n")) +
         summary_text(result.summary);
}

}  // namespace kvscope::ui
