#pragma once
// The subcommands of `kvscope-cli bench`, one bench_*.cpp each; cmd_bench.cpp lists them.
// Each registers itself on the `bench` app and stores its exit code like any subcommand.
#include <chrono>
#include <cstddef>

namespace CLI {
class App;
}

namespace kvscope::cli {

void add_bench_paged_command(CLI::App& bench, int& exit_code);
void add_bench_quant_command(CLI::App& bench, int& exit_code);
void add_bench_engine_command(CLI::App& bench, int& exit_code);
void add_bench_quality_command(CLI::App& bench, int& exit_code);
void add_bench_sweep_command(CLI::App& bench, int& exit_code);

// Nanoseconds of the fastest of `repeats` runs of `run` (the least disturbed by other processes).
template <class F>
double best_of_ns(int repeats, F&& run) {
  double best = 0;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
    if (i == 0 || took.count() < best) best = took.count();
  }
  return best;
}

}  // namespace kvscope::cli
