// `kvscope-cli bench sweep`: configs per second of a sweep with 1 job and with N (default: all
// cores) on the same grid in the same run, their ratio, and whether the CSVs came out
// byte-identical (they must).
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <memory>
#include <string>
#include <thread>

#include "bench_commands.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "load/load_error.hpp"
#include "run_option_flags.hpp"
#include "sweep/config_apply.hpp"
#include "sweep/job_pool.hpp"
#include "sweep/sweep_run.hpp"
#include "sweep/sweep_table.hpp"

namespace kvscope::cli {
namespace {

engine_options sweep_base_options() {
  engine_options o;
  o.model = "tiny";
  o.budget_bytes = 16ull << 20;
  return o;
}

struct bench_sweep_options {
  std::string load = "gen:rate=20,prompt=lognormal:500:0.6,output=uniform:120:0.5,count=4000,seed=11";
  std::string grid = "q8_threshold=0.6,0.8 ewma_alpha=0.1,0.5 hysteresis=0.02,0.08";
  run_option_flags flags;
  unsigned jobs = 0;
  int repeats = 3;
};

// The whole sweep's CSV text and how long it took.
std::pair<std::string, double> sweep_once(const run_description& base, const sweep_plan& plan, unsigned jobs) {
  std::map<std::size_t, std::string> rows;
  std::mutex mutex;
  const std::atomic<bool> never{false};
  const auto start = std::chrono::steady_clock::now();
  run_jobs(plan.configs.size(), jobs, never, [&](std::size_t i) {
    auto row = sweep_config_row(base, plan, i, nullptr);
    const std::lock_guard lock(mutex);
    rows[i] = std::move(*row);
  });
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::string text = sweep_header(plan.columns);
  for (auto& [i, row] : rows) text += row;
  return {text, took.count()};
}

int run_bench_sweep(const bench_sweep_options& o) {
  run_description base;
  base.load_spec = o.load;
  base.options = sweep_base_options();
  if (auto applied = o.flags.apply(base.options); !applied) {
    print_error(applied.error());
    return exit_bad_input;
  }
  auto axes = parse_grid(o.grid);
  if (!axes) {
    print_error(axes.error());
    return exit_bad_input;
  }
  auto plan = grid_plan(*axes);
  if (!plan) {
    print_error(plan.error());
    return exit_bad_input;
  }
  if (auto checked = check_plan(base, *plan); !checked) {
    print_error(checked.error());
    return exit_bad_input;
  }
  const unsigned jobs = o.jobs > 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  try {
    double best1 = 0, bestn = 0;
    for (int r = 0; r < o.repeats; ++r) {
      const auto [one, t1] = sweep_once(base, *plan, 1);
      const auto [many, tn] = sweep_once(base, *plan, jobs);
      if (one != many) {
        print_error("the CSV differs between 1 and " + std::to_string(jobs) + " jobs: determinism is broken");
        return exit_runtime_failure;
      }
      if (r == 0 || t1 < best1) best1 = t1;
      if (r == 0 || tn < bestn) bestn = tn;
    }
    const double n = static_cast<double>(plan->configs.size());
    std::printf("configs %zu  1 job %.3f s (%.2f configs/s)  %u jobs %.3f s (%.2f configs/s)  speedup %.2fx  CSV identical\n",
                plan->configs.size(), best1, n / best1, jobs, bestn, n / bestn, best1 / bestn);
  } catch (const load_error& e) {
    print_error(e.what());
    return exit_bad_input;
  }
  return stdout_exit_status();
}

}  // namespace

void add_bench_sweep_command(CLI::App& bench, int& exit_code) {
  auto o = std::make_shared<bench_sweep_options>();
  auto* cmd = bench.add_subcommand(
      "sweep", "Configs per second of a sweep with 1 job vs N on the same grid (best of --repeats); checks the "
               "CSVs are byte-identical");
  cmd->add_option("--load", o->load, "Load spec")->default_val(o->load);
  cmd->add_option("--grid", o->grid, "Grid, as sweep --grid")->default_val(o->grid);
  o->flags.add_to(*cmd, in_bench, sweep_base_options());
  cmd->add_option("--jobs", o->jobs, "Jobs of the parallel sweep (default: all cores)")->check(CLI::Range(1u, 4096u));
  cmd->add_option("--repeats", o->repeats, "Sweeps of each, best taken")->default_val(3)->check(CLI::Range(1, 100));
  cmd->callback([o, &exit_code] { exit_code = run_bench_sweep(*o); });
}

}  // namespace kvscope::cli
