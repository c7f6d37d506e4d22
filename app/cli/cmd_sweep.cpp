// `kvscope-cli sweep`: one run per config of a grid or a configs file, one CSV row each, in
// config order — the same bytes whatever --jobs, MPI ranks (mpirun -n N) or --shard and
// sweep-merge. `kvscope-cli sweep-merge`: shard files into the one-process file.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "cli_support.hpp"
#include "commands.hpp"
#include "interrupt.hpp"
#include "output_checks.hpp"
#include "run_base.hpp"
#include "sweep/config_apply.hpp"
#include "sweep/sweep_file.hpp"
#include "sweep/sweep_provenance.hpp"
#include "sweep/sweep_run.hpp"
#include "sweep/sweep_table.hpp"
#include "sweep_exec.hpp"
#include "sweep_plan_flags.hpp"
#include "util/atomic_write.hpp"

namespace kvscope::cli {
namespace {

struct sweep_options {
  run_base_flags base;
  sweep_plan_flags space;
  std::string out;
  unsigned jobs = 0;
  bool resume = false;
  std::string shard = "0/1";
  bool verbose = false;
  bool quiet = false;
  bool no_reuse = false;
};

// The closing lines on stderr: what ran where, how many configs reused an identical run, and a
// calibration's range (the same share of every row's figure: said once, not per row).
void print_closing(const sweep_options& o, const std::string& where, const sweep_sink& sink, std::size_t before,
                   std::size_t rows, const sweep_repeats& reused) {
  const double elapsed = sink.elapsed_s();
  const std::size_t ran = sink.completed();
  std::fprintf(stderr, "sweep: %zu configs run in %.2f s (%.2f configs/s) on %s%s; %zu rows in %s\n", ran, elapsed,
               elapsed > 0 ? static_cast<double>(ran) / elapsed : 0.0, where.c_str(),
               before ? (", " + std::to_string(before) + " from before").c_str() : "", rows, o.out.c_str());
  if (!o.no_reuse && reused.repeats > 0) {
    std::fprintf(stderr, "sweep: %s\n", reuse_note(reused.repeats, reused.configs).c_str());
  }
  if (const auto calibrated = o.base.flags.calibration_given(); calibrated && *calibrated) {
    std::fprintf(stderr, "sweep: timed by a calibration; each row's range: %s\n", range_shares_text(**calibrated).c_str());
  }
}

// Said before the runs: the configs the plan cannot run, which get empty metrics (--skip-invalid).
void print_invalid(const sweep_plan& plan) {
  if (plan.invalid.empty()) return;
  const auto first = std::find_if(plan.invalid.begin(), plan.invalid.end(), [](auto& r) { return !r.empty(); });
  const auto count = std::count_if(plan.invalid.begin(), plan.invalid.end(), [](auto& r) { return !r.empty(); });
  std::fprintf(stderr, "sweep: %td configs cannot run and get empty metrics (--skip-invalid), e.g. config %td: %s\n",
               count, first - plan.invalid.begin(), first->c_str());
}

// A failed or interrupted sweep says so, with the rows kept and how to finish; true then.
bool unfinished(const sweep_exec_outcome& outcome, std::size_t rows, const std::string& out) {
  if (!outcome.error.empty()) {
    print_error("a run failed: " + outcome.error + "; " + std::to_string(rows) + " rows in " + out +
                " (--resume runs the rest)");
    return true;
  }
  if (outcome.interrupted) {
    print_error("interrupted: " + std::to_string(rows) + " rows in " + out +
                "; run the same command with --resume to finish");
    return true;
  }
  return false;
}

int run_sweep(const sweep_options& o) {
  // Before anything is read, written or run: the output must be writable and replace no input.
  auto inputs = o.base.file_inputs();
  inputs.push_back({"--configs", o.space.configs_path});
  if (auto problem = check_outputs({{"--out", o.out}}, inputs)) {
    print_error(*problem);
    return exit_bad_input;
  }
  auto shard = parse_shard(o.shard);
  if (!shard) {
    print_error(shard.error());
    return exit_bad_input;
  }
  auto base = o.base.build();
  if (!base) {
    print_error(base.error());
    return exit_bad_input;
  }
  auto plan = o.space.plan(*base);
  if (!plan) {
    print_error(plan.error());
    return exit_bad_input;
  }
  if (const int checked = check_trace(*base); checked != exit_ok) return checked;
  if (!o.quiet) print_invalid(*plan);
  const interrupt_guard guard;
  std::optional<mpi_session> mpi;
  if (auto bad = join_launch(mpi, "use --shard K/N and sweep-merge instead")) {
    print_error(*bad);
    return exit_bad_input;
  }
  if (mpi && mpi->rank() != 0) {
    const auto error = serve_sweep(*mpi, *base, *plan, interrupt_guard::flag(), !o.no_reuse);
    return error.empty() ? exit_ok : exit_runtime_failure;
  }

  const std::string provenance = sweep_provenance_json(*base, *plan, load_checksum(*base), o.base.typed());
  sweep_file file(o.out, sweep_header(plan->columns), provenance);
  std::vector<std::size_t> todo;
  int status = exit_ok;
  std::error_code ec;
  // A sidecar left by an earlier sweep to this path must not vouch for the rows of this one.
  if (!o.resume) std::filesystem::remove(sweep_provenance_path(o.out), ec);
  if (o.resume) {
    if (auto r = file.resume(*plan, *shard); !r) {
      print_error(r.error());
      status = exit_bad_input;
    }
  }
  if (status == exit_ok) {
    for (std::size_t i = 0; i < plan->configs.size(); ++i) {
      if (shard->takes(i) && !file.has(i)) todo.push_back(i);
    }
  }
  const std::size_t before = file.size();
  const std::map<std::size_t, std::string> earlier = file.rows();  // before the sink adds to them
  const unsigned jobs = o.jobs > 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  sweep_sink sink(file, *plan, todo.size(), o.verbose);
  const auto outcome = mpi ? coordinate_sweep(*mpi, todo, sink, interrupt_guard::flag())
                           : run_sweep_local(*base, *plan, todo, jobs, sink, interrupt_guard::flag(), !o.no_reuse, earlier);
  if (status != exit_ok) return status;  // the other ranks have been released
  // Counted from the rows, so the sidecar says the same whatever ran where.
  const auto reused = count_sweep_repeats(*base, *plan, file.rows());
  if (!o.no_reuse) file.set_provenance(sweep_provenance_with_reuse(provenance, reused.repeats, reused.configs));
  if (auto r = sink.finish(); !r) {
    print_error(r.error());
    return exit_runtime_failure;
  }
  if (unfinished(outcome, file.size(), o.out)) return exit_runtime_failure;
  if (!o.quiet) {
    const std::size_t workers = mpi ? static_cast<std::size_t>(mpi->size() - 1) : jobs;
    print_closing(o, std::to_string(workers) + (mpi ? " worker rank" : " job") + (workers == 1 ? "" : "s"), sink,
                  before, file.size(), reused);
  }
  return exit_ok;
}

}  // namespace

void add_sweep_command(CLI::App& root, int& exit_code) {
  auto o = std::make_shared<sweep_options>();
  auto* cmd = root.add_subcommand(
      "sweep",
      "Run one simulation per config of a grid (or a configs file) and write one CSV row each, in config "
      "order: the config's values and every summary metric. Same bytes whatever --jobs, MPI ranks or shards.");
  o->base.add_to(*cmd, in_simulate);
  o->space.add_to(*cmd);
  cmd->add_option("--out", o->out, "The CSV to write (atomically; rewritten at checkpoints)")->check(output_file_name())->required();
  cmd->add_option("--jobs", o->jobs, "Configs run at once, one core each (default: all cores)")
      ->check(CLI::Range(1u, 4096u));
  cmd->add_flag("--resume", o->resume, "Keep the rows already in --out and run only the configs missing");
  cmd->add_option("--shard", o->shard, "Run only configs i with i mod N == K, for job arrays (merge with sweep-merge)")
      ->type_name("K/N");
  cmd->add_flag("--verbose", o->verbose, "One line per config on stderr: its wall time and where it ran");
  cmd->add_flag("--quiet", o->quiet, "No closing line on stderr");
  cmd->add_flag("--no-reuse", o->no_reuse,
                "Run every config, even one whose run cannot differ from an earlier config's (same rows, more time)");
  cmd->callback([o, &exit_code] { exit_code = run_sweep(*o); });

  auto files = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  auto* merge = root.add_subcommand(
      "sweep-merge", "Merge sweep CSVs of one sweep (shards from --shard K/N) into the file one process writes");
  merge->add_option("FILES", *files, "Shard files")->required()->check(CLI::ExistingFile);
  merge->add_option("--out", *out, "The merged CSV (atomically)")->check(output_file_name())->required();
  merge->callback([files, out, &exit_code] {
    std::vector<named_path> inputs;
    for (const auto& f : *files) inputs.push_back({"FILES", f});
    if (auto problem = check_outputs({{"--out", *out}}, inputs)) {
      print_error(*problem);
      exit_code = exit_bad_input;
      return;
    }
    std::vector<std::filesystem::path> paths(files->begin(), files->end());
    auto merged = merge_sweep_files(paths);
    if (!merged) {
      print_error(merged.error());
      exit_code = exit_bad_input;
      return;
    }
    if (!merged->warning.empty()) std::fprintf(stderr, "sweep-merge: warning: %s\n", merged->warning.c_str());
    const auto sidecar = sweep_provenance_path(*out);
    std::error_code ec;
    if (merged->provenance.empty()) std::filesystem::remove(sidecar, ec);  // a stale one would vouch for it
    auto r = write_file_atomically(*out, merged->csv);
    if (r && !merged->provenance.empty()) r = write_file_atomically(sidecar, merged->provenance);
    if (!r) {
      print_error(r.error());
      exit_code = exit_runtime_failure;
      return;
    }
    exit_code = exit_ok;
  });
}

}  // namespace kvscope::cli
