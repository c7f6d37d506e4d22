// `kvscope-cli bench engine`: the engine's step rate with 1 worker thread and with N, on the same
// load in the same run, their ratio, and whether the metrics came out bit-identical (they must).
#include <CLI/CLI.hpp>
#include <tbb/global_control.h>

#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench_commands.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "io/metrics_csv.hpp"
#include "load/load_error.hpp"
#include "run/run_service.hpp"
#include "run_option_flags.hpp"

namespace kvscope::cli {
namespace {

// A data-mode run where quantization work dominates: blocks are born cold at q8/q4 (short hot
// tail, aggressive policy), migration re-quantizes, quality is sampled often.
engine_options quantization_heavy_run() {
  engine_options o;
  o.model = "tiny";
  o.budget_bytes = 16ull << 20;
  o.payload = payload_mode::data;
  o.policy = *policy_preset("aggressive");
  o.tail_tokens = 32;
  o.quality_every = 10;
  return o;
}

struct bench_engine_options {
  std::string load = "gen:rate=40,prompt=lognormal:800:0.6,output=uniform:120:0.5,count=300,seed=5";
  run_option_flags flags;
  int threads = 0;
  int repeats = 3;
};

struct timed_run {
  double seconds = 0;
  std::uint64_t steps = 0;
  std::string fingerprint;  // every step's metrics row, concatenated
};

timed_run run_once(const run_description& run, int threads) {
  tbb::global_control control(tbb::global_control::max_allowed_parallelism,
                              static_cast<std::size_t>(threads));
  timed_run r;
  run_hooks hooks;
  hooks.on_step = [&](const engine& e) {
    r.fingerprint += metrics_csv_row(e.last_metrics());
    r.fingerprint += '\n';
  };
  const auto result = run_to_end(run, hooks);
  r.seconds = result.summary.wall_seconds;
  r.steps = result.summary.steps;
  return r;
}

int run_bench_engine(const bench_engine_options& o) {
  run_description run;
  run.load_spec = o.load;
  run.options = quantization_heavy_run();
  if (auto applied = o.flags.apply(run.options); !applied) {
    print_error(applied.error());
    return exit_bad_input;
  }
  if (auto reason = validate(run.options)) {
    print_error(*reason);
    return exit_bad_input;
  }
  const int threads = o.threads > 0 ? o.threads : static_cast<int>(std::thread::hardware_concurrency());
  try {
    timed_run best1, bestn;
    for (int i = 0; i < o.repeats; ++i) {
      auto one = run_once(run, 1);
      auto many = run_once(run, threads);
      if (one.fingerprint != many.fingerprint) {
        print_error("metrics differ between 1 and " + std::to_string(threads) +
                    " threads: determinism is broken");
        return exit_runtime_failure;
      }
      if (i == 0 || one.seconds < best1.seconds) best1 = std::move(one);
      if (i == 0 || many.seconds < bestn.seconds) bestn = std::move(many);
    }
    std::printf("steps %llu  1 thread %.3f s  %d threads %.3f s  speedup %.2fx  metrics identical\n",
                static_cast<unsigned long long>(best1.steps), best1.seconds, threads,
                bestn.seconds, best1.seconds / bestn.seconds);
  } catch (const load_error& e) {
    print_error(e.what());
    return exit_bad_input;
  }
  return exit_ok;
}

}  // namespace

void add_bench_engine_command(CLI::App& bench, int& exit_code) {
  auto o = std::make_shared<bench_engine_options>();
  auto* cmd = bench.add_subcommand(
      "engine", "Engine steps with 1 thread vs N on the same data-mode load (best of --repeats); "
                "checks the metrics are bit-identical");
  cmd->add_option("--load", o->load, "Load spec")->default_val(o->load);
  o->flags.add_to(*cmd, in_bench, quantization_heavy_run());
  cmd->add_option("--threads", o->threads, "Threads of the parallel run (default: all cores)");
  cmd->add_option("--repeats", o->repeats, "Runs of each, best taken")->default_val(3)->check(CLI::Range(1, 100));
  cmd->callback([o, &exit_code] { exit_code = run_bench_engine(*o); });
}

}  // namespace kvscope::cli
