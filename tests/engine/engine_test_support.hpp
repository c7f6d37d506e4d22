#pragma once
// Small engines on generated loads, shared by the engine tests.
#include <memory>
#include <string>
#include <vector>

#include <tbb/global_control.h>

#include "engine/engine.hpp"
#include "io/metrics_csv.hpp"
#include "load/open_load.hpp"

namespace kvscope::test {

inline std::unique_ptr<request_source> gen_load(const std::string& spec) {
  return open_load(spec, load_format::automatic, read_options{});
}

// Forty requests on the tiny model whose pressure in a small budget takes a policy through every
// level it may reach.
inline constexpr const char* pressured_load =
    "gen:rate=30,prompt=lognormal:300:0.6,output=uniform:80:0.5,count=40,seed=3";

inline engine_options tiny_options(std::uint64_t budget_bytes, payload_mode payload) {
  engine_options o;
  o.model = "tiny";
  o.budget_bytes = budget_bytes;
  o.payload = payload;
  o.quality_every = 20;
  return o;
}

// Every step's metrics as CSV rows: equal vectors mean bit-identical metrics.
inline std::vector<std::string> run_rows(engine& e) {
  std::vector<std::string> rows;
  while (e.step()) rows.push_back(metrics_csv_row(e.last_metrics()));
  return rows;
}

// run_rows of a fresh engine with its parallel loops on at most `threads` threads.
inline std::vector<std::string> run_rows_on(int threads, const engine_options& options,
                                            const std::string& load) {
  tbb::global_control c(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  engine e(options, gen_load(load));
  return run_rows(e);
}

}  // namespace kvscope::test
