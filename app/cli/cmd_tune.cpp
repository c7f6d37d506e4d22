// `kvscope-cli tune`: the best config of a search space under constraints, written as the
// policy config the reference runtime loads (docs/policy.md, "The reference runtime") plus a
// provenance sidecar. With --objective max:capacity_rps, each config's score is its capacity
// (the highest arrival rate keeping SLO attainment at --target), found by bisection on a time
// scaling of the load.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "cli_support.hpp"
#include "commands.hpp"
#include "engine/engine_setup.hpp"
#include "interrupt.hpp"
#include "io/policy_file.hpp"
#include "output_checks.hpp"
#include "load/load_error.hpp"
#include "load/resampled_arrivals.hpp"
#include "run_base.hpp"
#include "sweep/config_apply.hpp"
#include "sweep/sweep_run.hpp"
#include "sweep/tune_run.hpp"
#include "sweep/tuned_file.hpp"
#include "sweep_plan_flags.hpp"
#include "tune_mpi.hpp"

namespace kvscope::cli {
namespace {

struct tune_options {
  run_base_flags base;
  std::string space;
  std::string objective;
  std::vector<std::string> constraints;
  std::string search = "descent";
  std::string out;
  unsigned jobs = 0;
  capacity_options capacity;
  bool no_reuse = false;
  bool no_capacity_hints = false;
  bool strict = false;  // refuse to write a policy the reference runtime cannot run
};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// "goodput_rps 12.3, attention_error_exposure 0.041 (<=0.05 met)".
std::string score_text(const tune_problem& p, const tune_score& s) {
  std::string out = p.goal.key + " " + number(s.objective);
  for (std::size_t i = 0; i < p.constraints.size(); ++i) {
    out += ", " + p.constraints[i].key + " " + number(s.constraint_values[i]) + " (" + to_string(p.constraints[i]) +
           (satisfied(p.constraints[i], s.constraint_values[i]) ? " met)" : " missed)");
  }
  if (!s.detail.empty()) out += "; " + s.detail;
  return out;
}

// Said when the chosen EWMA policy never changed level in the run scored: its thresholds were
// never exercised, so the search could not tell them apart and the policy does not matter here.
void print_policy_note(const run_description& chosen_run, const tune_score& s, bool capacity) {
  if (chosen_run.options.policy.family != policy_family::ewma) return;
  const double peak = figure(s, "peak_usage");
  if (figure(s, "transitions_per_hour") != 0 || std::isnan(peak)) return;
  std::cout << "note        the chosen policy never changed level" << (capacity ? " at capacity" : "")
            << " (KV usage peaked at " << number(100 * peak)
            << " %): its thresholds were never exercised, so configs that differ only in thresholds above that "
               "peak score alike, and the KV policy does not matter at this load\n";
}

// How the capacity search changed the load's rate: time-scaling keeps a trace's bursts;
// resampled arrivals replace them with the process asked for, which is then time-scaled.
std::string rate_scaling_words(const engine_options& chosen) {
  const auto process = parse_arrival_process(chosen.arrivals);
  const std::string resampled = process ? describe_arrival_process(*process) : "";
  if (resampled.empty()) return "its arrival times scaled (its bursts kept)";
  return "its arrivals resampled as " + resampled +
         " at its mean rate, then scaled (the trace's own bursts not kept)";
}

// The objective and constraints, checked; what to print otherwise.
expected<tune_problem, std::string> read_problem(const tune_options& o) {
  tune_problem problem;
  auto goal = parse_objectives(o.objective, "--objective");
  if (!goal) return unexpected{goal.error()};
  if (goal->size() != 1) return unexpected{std::string("--objective: exactly one objective (tune maximizes or minimizes one metric)")};
  problem.goal = goal->front();
  for (const auto& text : o.constraints) {
    auto c = parse_constraint(text, "--constraint");
    if (!c) return unexpected{c.error()};
    if (auto why = implausible_bound(*c, "--constraint")) print_warning(*why);
    problem.constraints.push_back(std::move(*c));
  }
  if (auto checked = check_tune_problem(problem); !checked) return unexpected{checked.error()};
  return problem;
}

// --out names a policy file and, with its provenance, nothing it must not replace; why not otherwise.
std::optional<std::string> check_out(const tune_options& o) {
  if (o.out.empty()) return std::nullopt;
  if (!config_format_from_path(o.out)) {
    return "--out: '" + o.out + "': name the file *.json or *.toml (the policy config formats)";
  }
  const std::vector<named_path> outputs{{"--out", o.out}, {"--out (its provenance)", provenance_path(o.out).string()}};
  return check_outputs(outputs, o.base.file_inputs());
}

// What a capacity objective needs of the run and the options; why it cannot be searched otherwise.
std::optional<std::string> check_capacity(const tune_options& o, const run_description& base, bool capacity) {
  if (capacity && base.options.slo.empty()) {
    return "--objective capacity_rps: give --slo (capacity is the highest rate at which requests meet their SLOs)";
  }
  if (!(o.capacity.target > 0 && o.capacity.target <= 1)) {
    return "--target: expected a share in (0, 1], got " + number(o.capacity.target);
  }
  return std::nullopt;
}

// What the search found, or the exit code of a process with nothing to report.
struct tune_search_run {
  tune_result result;
  load_facts facts;
  std::size_t engine_runs = 0;
  std::optional<int> worker_exit;  // an MPI worker's, or a refusal already printed
};

tune_search_run exited(int code) {
  tune_search_run r;
  r.worker_exit = code;
  return r;
}

// The search itself, on this process's jobs or across MPI ranks (rank 0 gets the result, the
// others serve and return their exit code). Throws load_error.
std::optional<tune_search_run> search(const tune_options& o, const run_description& base, const tune_problem& problem,
                                      bool capacity) {
  std::optional<mpi_session> mpi;
  if (auto bad = join_launch(mpi, "run it as one process")) {
    print_error(*bad);
    return exited(exit_bad_input);
  }
  tune_run_options run_options;
  run_options.jobs = o.jobs > 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  run_options.capacity = o.capacity;
  run_options.cancel = &interrupt_guard::flag();
  run_options.reuse = !o.no_reuse;
  run_options.capacity_hints = !o.no_capacity_hints;
  std::atomic<std::size_t> engine_runs{0};
  tune_search_run out;
  out.facts = read_load_facts(base);
  if (capacity && out.facts.rate() <= 0) {
    print_error("--objective capacity_rps: the load has no arrival rate (fewer than 2 requests, or all at time 0)");
    return exited(exit_bad_input);
  }
  run_options.load_rate = out.facts.rate();
  run_options.load_requests = out.facts.requests;
  if (mpi) run_options.jobs = 1;  // a rank is a job: one config at a time each
  if (mpi && mpi->rank() != 0) {
    const auto error = serve_tune(*mpi, problem, make_hinted_tune_evaluator(base, problem, run_options, engine_runs),
                                  engine_runs);
    return exited(error.empty() ? exit_ok : exit_runtime_failure);
  }
  const auto method = o.search == "grid" ? tune_method::grid : tune_method::descent;
  if (mpi) {
    tune_workers workers(*mpi);
    out.result = tune_search(problem, method, workers.evaluator(problem, engine_runs, run_options.capacity_hints));
  } else {
    out.result = tune_search(problem, method, make_tune_evaluator(base, problem, run_options, engine_runs));
  }
  out.engine_runs = engine_runs.load();
  return out;
}

// The search, best, score and (with a capacity objective) capacity lines.
void print_result(const tune_options& o, const run_description& base, const tune_problem& problem,
                  const tune_search_run& run, std::size_t reused, bool capacity) {
  const tune_result& result = run.result;
  const auto chosen = config_at(problem, result.best);
  std::cout << "search      " << o.search << ": " << result.trials.size() << " of " << result.grid_size
            << " configs run (" << run.engine_runs - reused << " engine runs";
  if (reused > 0) std::cout << "; " << reused << " more reused an identical run: " << reuse_reason;
  std::cout << ")\n";
  std::cout << "best        config " << result.best_index << (chosen.empty() ? "" : ": " + describe(chosen)) << '\n';
  std::cout << "score       " << score_text(problem, result.score) << '\n';
  if (!result.score.figures.empty()) {
    std::string figures;
    for (const auto& [key, value] : result.score.figures) figures += (figures.empty() ? "" : ", ") + key + " " + number(value);
    std::cout << (capacity ? "at capacity " : "figures     ") << figures << '\n';
  }
  if (capacity && result.score.infeasible_share > 1 - o.capacity.target) {
    // Never a bare 0: say that the target is out of reach at any rate, and what can be had.
    std::cout << "capacity    none: SLO attainment >= " << number(o.capacity.target) << " (" << base.options.slo
              << ") cannot be had at any rate: " << number(100 * result.score.infeasible_share)
              << " % of the requests miss even alone on an idle server, so at most "
              << number(100 * (1 - result.score.infeasible_share)) << " % can be attained; a faster GPU, more GPUs (--tp) "
              << "or a looser SLO changes that, a lower --target finds the rate for what can be had\n";
  } else if (capacity) {
    std::cout << "capacity    " << number(result.score.objective) << " requests/s with SLO attainment >= "
              << number(o.capacity.target) << " (" << base.options.slo << "); the load itself arrives at "
              << number(run.facts.rate()) << " requests/s, " << rate_scaling_words(config_run(base, chosen).options);
    if (result.score.infeasible_share > 0) {
      std::cout << "; " << number(100 * result.score.infeasible_share)
                << " % of its requests miss even alone on an idle server";
    }
    std::cout << '\n';
  }
  print_policy_note(config_run(base, chosen), result.score, capacity);
}

// --out: the chosen policy and its provenance; the exit code.
int write_out(const tune_options& o, const run_description& base, const tune_problem& problem,
              const tune_search_run& run, std::size_t reused, bool capacity) {
  const auto chosen = config_at(problem, run.result.best);
  const run_description best_run = config_run(base, chosen);
  tune_provenance p;
  p.load = base.load_spec;
  p.load_checksum = run.facts.checksum;
  p.model = base.options.model;
  p.gpu = base.options.gpu;
  // `auto` is stored as 0; the provenance names the bytes the runs had, and that they were auto.
  p.budget_auto = base.options.budget_bytes == 0;
  const auto setup = resolve_setup(base.options);  // resolved before the runs: it cannot fail here
  p.budget_bytes = setup ? setup->budget_bytes : base.options.budget_bytes;
  p.slo = base.options.slo;
  p.method = o.search;
  p.engine_runs = run.engine_runs - reused;
  if (!o.no_reuse) p.reused_runs = reused;
  p.fixed_options = o.base.typed();
  if (capacity) p.capacity_target = o.capacity.target;
  const export_check check = o.strict ? export_check::strict : export_check::note;
  if (auto r = write_tuned(o.out, best_run.options.policy, problem, run.result, p, check); !r) {
    print_error(r.error());
    return o.strict && reaches_q3(best_run.options.policy) ? exit_bad_input : exit_runtime_failure;
  }
  std::cout << "wrote       " << o.out << " (policy: " << describe(best_run.options.policy) << ") and "
            << provenance_path(o.out).string() << '\n';
  for (const auto& s : chosen) {
    // Options outside the policy are not in a policy file: say so rather than drop them silently.
    if (!is_policy_setting(s.name)) {
      std::cout << "note        " << s.name << "=" << s.value
                << " is a run option, not a policy field: the provenance records it, the policy file cannot\n";
    }
  }
  return stdout_exit_status();
}

int run_tune(const tune_options& o) {
  auto problem = read_problem(o);
  if (!problem) {
    print_error(problem.error());
    return exit_bad_input;
  }
  if (auto bad = check_out(o)) {
    print_error(*bad);
    return exit_bad_input;
  }
  auto base = o.base.build();
  if (!base) {
    print_error(base.error());
    return exit_bad_input;
  }
  const bool capacity = problem->goal.key == capacity_metric;
  if (auto bad = check_capacity(o, *base, capacity)) {
    print_error(*bad);
    return exit_bad_input;
  }
  if (!o.space.empty()) {
    auto axes = checked_axes(o.space, *base);
    if (!axes) {
      print_error(axes.error());
      return exit_bad_input;
    }
    problem->axes = std::move(*axes);
  }
  if (const int checked = check_trace(*base); checked != exit_ok) return checked;

  const interrupt_guard guard;
  std::optional<tune_search_run> run;
  try {
    run = search(o, *base, *problem, capacity);
  } catch (const load_error& e) {
    print_error(e.what());
    return exit_bad_input;
  }
  if (run->worker_exit) return *run->worker_exit;
  if (interrupt_guard::flag().load()) {
    print_error("interrupted: nothing written");
    return exit_runtime_failure;
  }
  // Counted from the runs' own figures: the same whatever ran on which job or rank.
  const std::size_t reused = o.no_reuse ? 0 : count_tune_repeats(*base, *problem, run->result);
  print_result(o, *base, *problem, *run, reused, capacity);
  if (!run->result.feasible) {
    print_error("no config of the space meets the constraints; the closest is shown above, nothing written");
    return exit_runtime_failure;
  }
  if (o.out.empty()) return stdout_exit_status();
  return write_out(o, *base, *problem, *run, reused, capacity);
}

}  // namespace

void add_tune_command(CLI::App& root, int& exit_code) {
  auto o = std::make_shared<tune_options>();
  auto* cmd = root.add_subcommand(
      "tune",
      "Find the config of a search space with the best objective under constraints, and write it as a policy "
      "config with a provenance sidecar. --objective max:capacity_rps searches each config's capacity.");
  o->base.add_to(*cmd, in_simulate);
  cmd->add_option("--space", o->space, "The search space, as sweep --grid: 'q8_threshold=0.5:0.95:0.05 ...'")
      ->type_name("AXES");
  cmd->add_option("--objective", o->objective, "max:METRIC or min:METRIC (a summary metric, or max:capacity_rps)")
      ->required();
  cmd->add_option("--constraint", o->constraints, "METRIC<=NUMBER (or <, >=, >); may be given several times");
  cmd->add_option("--search", o->search, "descent: coordinate descent over the grid, fewer runs; grid: every config")
      ->check(CLI::IsMember({"descent", "grid"}))
      ->default_val("descent");
  cmd->add_option("--out", o->out, "Write the best policy config here (.json or .toml) and <out>.provenance.json")->check(output_file_name());
  cmd->add_flag("--strict", o->strict,
                "With --out: refuse a best policy the reference runtime cannot run (one reaching q3, "
                "kvscope's own level) instead of writing it with a note saying so");
  cmd->add_option("--jobs", o->jobs, "Runs at once, one core each (default: all cores)")->check(CLI::Range(1u, 4096u));
  cmd->add_flag("--no-reuse", o->no_reuse,
                "Run every engine run, even one that cannot differ from an earlier config's (same result, more time)");
  cmd->add_flag("--no-capacity-hints", o->no_capacity_hints,
                "capacity_rps: search every config's capacity from the load's own rate, not from the capacity of "
                "the nearest config already scored (the same brackets when attainment falls with the rate; more runs)");
  cmd->add_option("--target", o->capacity.target, "capacity_rps: SLO attainment to keep")->default_val(0.99);
  cmd->add_option("--tolerance", o->capacity.tolerance, "capacity_rps: stop when the bracket is this narrow (relative)")
      ->default_val(0.01)
      ->check(CLI::Range(1e-6, 1.0));
  cmd->callback([o, &exit_code] { exit_code = run_tune(*o); });
}

}  // namespace kvscope::cli
