// `kvscope-cli bench`: measurements on this machine, one subcommand per bench_*.cpp.
// Results are ratios against baselines measured in the same run, never pass/fail thresholds.
#include <CLI/CLI.hpp>

#include "bench_commands.hpp"
#include "commands.hpp"

namespace kvscope::cli {

void add_bench_command(CLI::App& root, int& exit_code) {
  auto* bench = root.add_subcommand(
      "bench", "Measure the cache and its kernels on this machine (one subcommand per benchmark)");
  bench->require_subcommand(1);
  add_bench_paged_command(*bench, exit_code);
  add_bench_quant_command(*bench, exit_code);
  add_bench_engine_command(*bench, exit_code);
  add_bench_quality_command(*bench, exit_code);
  add_bench_sweep_command(*bench, exit_code);
}

}  // namespace kvscope::cli
