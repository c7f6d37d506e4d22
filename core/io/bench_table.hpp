#pragma once
// The table `vllm bench serve` prints, for a simulated run or a measured result file, so the two
// can be laid side by side: same lines, same units (ms), same formatting.
#include <cstdint>
#include <optional>
#include <string>

#include "load/vllm_bench.hpp"
#include "run/run_summary.hpp"

namespace kvscope {

struct bench_figures {
  std::uint64_t completed = 0;
  std::optional<std::uint32_t> max_concurrency;
  double request_rate = 0;  // +inf: all at once
  double duration_s = 0;
  std::uint64_t total_input_tokens = 0, total_output_tokens = 0;
  double request_throughput = 0, output_throughput = 0, total_token_throughput = 0;
  // mean, median, p99 in ms of ttft, tpot, itl, e2el (NaN where unknown).
  double ttft[3]{}, tpot[3]{}, itl[3]{}, e2el[3]{};
};

// From a simulated run; `max_concurrency` and `request_rate` as the load was sent.
bench_figures figures_of(const run_summary& s, std::optional<std::uint32_t> max_concurrency, double request_rate);
// From a measured result file (its summary fields where present, else its lists).
bench_figures figures_of(const vllm_bench_result& m);

// vLLM's "Serving Benchmark Result" block, with `title` as its heading.
std::string bench_table(const bench_figures& f, const std::string& title = "Serving Benchmark Result");

}  // namespace kvscope
