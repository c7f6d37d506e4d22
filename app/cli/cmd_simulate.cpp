// `kvscope-cli simulate` and `kvscope-cli replay`: run a load to the end through the run service,
// headless. The engine options come from the option table (run_option_flags).
#include <CLI/CLI.hpp>
#include <tbb/global_control.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "io/metrics_csv.hpp"
#include "io/policy_file.hpp"
#include "io/requests_file.hpp"
#include "io/session_file.hpp"
#include "load/load_error.hpp"
#include "load_options.hpp"
#include "run/run_service.hpp"
#include "io/summary_format.hpp"
#include "run/run_summary.hpp"
#include "output_checks.hpp"
#include "run_base.hpp"
#include "engine/engine.hpp"
#include "sched/scheduler.hpp"
#include "util/atomic_write.hpp"

namespace kvscope::cli {
namespace {

struct output_options {
  int threads = 0;  // 0 = TBB's default (all cores)
  std::string metrics_path;
  std::uint32_t metrics_every = 1;
  std::string summary_json_path;
  std::string requests_path;
  bool quiet = false;
};

struct simulate_options {
  run_base_flags base;
  std::string session_path;
  double rate_scale = 1.0;
  output_options out;
};

// The outputs of output_options, but --summary-json '-', which is stdout.
std::vector<named_path> outputs_of(const output_options& o) {
  std::vector<named_path> out{{"--metrics", o.metrics_path}, {"--requests", o.requests_path}};
  if (o.summary_json_path != "-") out.push_back({"--summary-json", o.summary_json_path});
  return out;
}

void add_output_options(CLI::App& cmd, output_options& o) {
  cmd.add_option("--threads", o.threads, "Worker threads for quantization and migration (default: all cores)")
      ->check(CLI::Range(1, 1024));
  cmd.add_option("--metrics", o.metrics_path, "Write per-step metrics as CSV (atomically)")->check(output_file_name());
  cmd.add_option("--metrics-every", o.metrics_every, "Write every K-th step to --metrics")
      ->check(CLI::Range(1u, 1u << 30))
      ->default_val(1);
  cmd.add_option("--summary-json", o.summary_json_path,
                 "Write the summary as JSON to FILE ('-' for stdout, replacing the text summary)")->check(output_file_name());
  cmd.add_option("--requests", o.requests_path,
                 "Write one CSV row per request (arrival, first token, finish, TTFT, TPOT, e2e, "
                 "outcome or rejection reason), atomically")->check(output_file_name());
  cmd.add_flag("--quiet", o.quiet, "No text summary on stdout");
}

// "step 1024, 12 s simulated, 300/310 requests done, 42 % of the load, ETA 3 s"
void print_progress(const run_progress& p) {
  char eta[48] = "";
  if (p.load_fraction > 0.01 && p.load_fraction < 1) {
    std::snprintf(eta, sizeof eta, ", %.0f %% of the load, ETA %.0f s", 100 * p.load_fraction,
                  p.wall_seconds * (1 - p.load_fraction) / p.load_fraction);
  }
  std::fprintf(stderr, "\rstep %llu, %.0f s simulated, %llu/%llu requests done%s   ",
               static_cast<unsigned long long>(p.steps), p.sim_time_s,
               static_cast<unsigned long long>(p.requests_done),
               static_cast<unsigned long long>(p.requests_seen), eta);
}

// On stderr, each rejected request while they are few; beyond that a count per cause with the
// first request of each, so that a trace full of over-long prompts (Mooncake's on a 40k-context
// model: hundreds) does not bury the summary. The --requests file has every one with its reason.
void report_rejections(const engine& e, const std::string& requests_path) {
  constexpr std::size_t listed_one_by_one = 10;
  const std::vector<rejected_request>& rejected = e.rejected();
  if (rejected.size() <= listed_one_by_one) {
    for (const auto& r : rejected) {
      std::cerr << "kvscope-cli: request " << r.request_id << " rejected: " << r.reason << '\n';
    }
    return;
  }
  const auto& count = e.rejected_by_cause();  // the scheduler counted them as it rejected
  std::array<const rejected_request*, rejection_cause_count> first{};
  for (const auto& r : rejected) {
    const auto i = static_cast<std::size_t>(r.cause);
    if (first[i] == nullptr) first[i] = &r;
  }
  std::cerr << "kvscope-cli: " << rejected.size() << " requests rejected; "
            << (requests_path.empty() ? std::string("--requests FILE lists each with its reason")
                                      : "each is in " + requests_path + " with its reason")
            << '\n';
  for (std::size_t i = 0; i < count.size(); ++i) {
    if (count[i] == 0) continue;
    std::cerr << "kvscope-cli:   " << count[i] << ' ' << describe(static_cast<rejection_cause>(i))
              << ", the first request " << first[i]->request_id << ": " << first[i]->reason << '\n';
  }
}

// A file written only when the run and every other output succeeded (the session).
struct written_last {
  std::string path;  // "" = none
  std::string text;
};

// What the summary is reported with besides the run: the calibration it was timed by, if any.
struct report_extras {
  written_last last;
  std::optional<calibration> calibrated;
};

// The files a finished run writes, the session last: an interrupted or failed run leaves an
// existing session as it was.
expected<void, std::string> finish_outputs(metrics_csv_writer& csv, requests_csv_writer& requests,
                                           const output_options& out, const run_summary& summary,
                                           const calibration* calibrated, const written_last& last) {
  if (csv.is_open()) {
    if (auto r = csv.finish(); !r) return r;
  }
  if (requests.is_open()) {
    if (auto r = requests.finish(); !r) return r;
  }
  if (!out.summary_json_path.empty() && out.summary_json_path != "-") {
    if (auto r = write_file_atomically(out.summary_json_path, summary_json(summary, calibrated)); !r) return r;
  }
  if (!last.path.empty()) return write_file_atomically(last.path, last.text);
  return {};
}

// Runs `run` to the end with metrics, progress and the summary; returns the exit code.
int run_and_report(const run_description& run, const output_options& out, const report_extras& extras = {}) {
  const written_last& last = extras.last;
  const calibration* calibrated = extras.calibrated ? &*extras.calibrated : nullptr;
  if (const int checked = check_trace(run); checked != exit_ok) return checked;
  std::optional<tbb::global_control> threads;
  if (out.threads > 0) {
    threads.emplace(tbb::global_control::max_allowed_parallelism,
                    static_cast<std::size_t>(out.threads));
  }
  metrics_csv_writer csv;
  if (!out.metrics_path.empty()) {
    if (auto r = csv.open(out.metrics_path); !r) {
      print_error(r.error());
      return exit_bad_input;
    }
  }
  requests_csv_writer requests;
  if (!out.requests_path.empty()) {
    if (auto r = requests.open(out.requests_path); !r) {
      print_error(r.error());
      return exit_bad_input;
    }
  }
  const bool progress = stderr_is_terminal();
  run_hooks hooks;
  if (requests.is_open()) hooks.on_request = [&](const request_record& r) { requests.write(r); };
  if (csv.is_open()) {
    hooks.on_step = [&](const engine& e) {
      const auto& m = e.last_metrics();
      if (m.step % out.metrics_every == 0) csv.write(m);
    };
  }
  if (progress) hooks.on_progress = print_progress;
  run_result result;
  try {
    result = run_to_end(run, hooks);
  } catch (const load_error& err) {
    if (progress) std::fprintf(stderr, "\r\033[K");
    print_error(err.what());
    return exit_bad_input;
  } catch (const overload_error& err) {
    // No output is written: the run did not finish, and its figures would describe a part.
    if (progress) std::fprintf(stderr, "\r\033[K");
    print_error(std::string(err.what()) +
                ". Lower the load's rate, give the server more room (--budget, --max-num-seqs, "
                "--gpu, --tp), or raise --max-waiting-requests");
    return exit_runtime_failure;
  }
  if (progress) std::fprintf(stderr, "\r\033[K");
  if (auto r = finish_outputs(csv, requests, out, result.summary, calibrated, last); !r) {
    print_error(r.error());
    return exit_runtime_failure;
  }
  if (out.summary_json_path == "-") {
    std::cout << summary_json(result.summary, calibrated);
  } else if (!out.quiet) {
    std::cout << summary_text(result.summary, calibrated);
  }
  report_rejections(*result.final_engine, out.requests_path);
  return stdout_exit_status();
}

int run_simulate(const simulate_options& o) {
  // Before anything is read, written or run: no output may be unwritable or replace an input.
  auto outputs = outputs_of(o.out);
  outputs.push_back({"--session", o.session_path});
  if (auto problem = check_outputs(outputs, o.base.file_inputs())) {
    print_error(*problem);
    return exit_bad_input;
  }
  auto built = o.base.build();
  if (!built) {
    print_error(built.error());
    return exit_bad_input;
  }
  run_description& run = *built;
  if (o.rate_scale != 1.0) {
    if (!(o.rate_scale > 0) || !std::isfinite(o.rate_scale)) {
      print_error("--rate-scale: expected a positive number (2 = arrivals twice as fast), got " + std::to_string(o.rate_scale));
      return exit_bad_input;
    }
    run.arrival_time_scale = 1 / o.rate_scale;
  }
  report_extras extras;
  auto calibrated = o.base.flags.calibration_given();
  if (!calibrated) {
    print_error(calibrated.error());
    return exit_bad_input;
  }
  extras.calibrated = std::move(*calibrated);
  if (!o.session_path.empty()) {
    // Its checksums are of the files as the run reads them; it is written after the run.
    auto text = session_file_text(o.session_path, run);
    if (!text) {
      print_error(text.error());
      return exit_bad_input;
    }
    extras.last = {o.session_path, std::move(*text)};
  }
  return run_and_report(run, o.out, extras);
}

}  // namespace

void add_simulate_command(CLI::App& root, int& exit_code) {
  auto o = std::make_shared<simulate_options>();
  auto* cmd = root.add_subcommand(
      "simulate", "Run the paged KV cache, scheduler and policy on a load and print a summary");
  o->base.add_to(*cmd, in_simulate);
  cmd->add_option("--session", o->session_path, "Also write a session file that `replay` re-runs")->check(output_file_name());
  cmd->add_option("--rate-scale", o->rate_scale,
                  "Run the load at this many times its arrival rate: arrival times are divided by it, so a "
                  "trace keeps its bursts (as tune's capacity search scales it)")
      ->default_val(1.0);
  add_output_options(*cmd, o->out);
  cmd->callback([o, &exit_code] { exit_code = run_simulate(*o); });
}

// Whether a replay may go on: the trace, model and GPU files must be the ones the session was
// run on, unless --force. Every changed file is named, not only the first.
bool inputs_unchanged(const run_description& s, const std::string& session, bool force) {
  bool unchanged = true;
  for (const auto& check : check_input_checksums(s, session)) {
    if (check.result == trace_check_result::unrecorded) {
      std::cerr << "kvscope-cli: note: " << check.message << '\n';
    } else if (!force) {
      print_error(check.message + " (--force replays it anyway)");
      unchanged = false;
    } else {
      std::cerr << "kvscope-cli: warning: " << check.message << "; replaying anyway (--force)\n";
    }
  }
  return unchanged;
}

void add_replay_command(CLI::App& root, int& exit_code) {
  auto path = std::make_shared<std::string>();
  auto force = std::make_shared<bool>(false);
  auto out = std::make_shared<output_options>();
  auto* cmd = root.add_subcommand(
      "replay", "Re-run a session file (load, options and command log) and print its summary");
  cmd->add_option("--session", *path, "Session file")->required()->check(CLI::ExistingFile);
  cmd->add_flag("--force", *force,
                "Replay even if the trace, model or GPU file's checksum differs from the one the session "
                "recorded");
  add_output_options(*cmd, *out);
  cmd->callback([path, force, out, &exit_code] {
    auto s = read_session(*path);
    if (!s) {
      print_error(s.error());
      exit_code = exit_bad_input;
      return;
    }
    std::vector<named_path> inputs{{"--session", *path}, {"load", load_file_of(s->load_spec)}};
    for (auto& [key, file] : option_files(s->options)) inputs.push_back({key + " (in the session)", file});
    if (auto problem = check_outputs(outputs_of(*out), inputs)) {
      print_error(*problem);
      exit_code = exit_bad_input;
      return;
    }
    if (!inputs_unchanged(*s, *path, *force)) {
      exit_code = exit_bad_input;
      return;
    }
    exit_code = run_and_report(*s, *out);
  });
}

}  // namespace kvscope::cli
