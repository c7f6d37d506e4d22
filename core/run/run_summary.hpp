#pragma once
// The figures of a finished (or interrupted) run, as the CLI's summary and a policy export's
// provenance report them.
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/roofline.hpp"
#include "outcome/request_outcomes.hpp"
#include "quant/level.hpp"
#include "run/levers.hpp"

namespace kvscope {

class engine;

struct run_summary {
  std::string model;
  std::string load;
  std::uint64_t budget_bytes = 0;
  std::uint64_t requests_total = 0;
  std::uint64_t requests_finished = 0;
  std::uint64_t requests_rejected = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t level_transitions = 0;
  double transitions_per_hour = 0;  // level_transitions per simulated hour; 0 for an empty run
  double peak_usage = 0;
  double mean_usage = 0;
  std::uint64_t steps = 0;
  double sim_seconds = 0;
  double wall_seconds = 0;
  std::uint64_t decode_token_steps = 0;
  double decode_token_steps_per_s = 0;  // per wall-clock second
  double prefix_cache_hit_rate = 0;     // hits / queries, tokens; 0 with no queries
  std::array<std::uint64_t, kv_level_count> peak_bytes_per_level{};
  std::uint64_t peak_scale_bytes = 0;
  std::uint64_t migrated_blocks = 0;
  precision final_level = precision::fp16;
  std::array<double, kv_level_count> quant_rel_rmse{};    // NaN where never measured
  std::array<double, kv_level_count> attention_rel_l2{};  // NaN where never measured

  // How time was modelled, and the service the requests got (outcome/request_outcomes.hpp).
  std::string gpu;     // "" without one
  std::string timing;  // "linear" or "roofline"
  std::uint32_t tensor_parallel = 1;
  bool vllm_v0 = false;  // the host overheads of vLLM's V0 engine (--vllm-engine v0)
  std::string slo;     // as given; "" for none (then goodput = request throughput)
  // How --budget auto chose the budget ("" when it was given): usable memory, weights, reserve.
  std::string budget_note;
  outcome_summary service;
  server_demand demand;  // the load's GPU time against the span it arrived over
  lever_advice levers;   // what to change for the SLO misses (empty when nothing missed)
  // How the q4 level stored its blocks when not as q4 (the summaries say it only then, so
  // default runs' are as before): "q4o", its key channels, and a q4 block's bytes, payload and
  // side table (scales and outlier records).
  std::string q4_format;  // "" for q4
  std::uint32_t q4o_channels = 0;
  std::uint64_t q4_block_payload_bytes = 0;
  std::uint64_t q4_block_side_bytes = 0;
  double attention_error_exposure = 0;    // mean over steps that attended KV
  double attention_error_measured = NAN;  // data mode: pooled relative L2 of sampled sequences
  step_time_totals step_terms;  // roofline: the step time by term (shares: step_time_share)
};

// The share of the run's step time a roofline term took (`term` of step_time_totals), or NaN
// with linear timing or no step.
double step_time_share(const run_summary& s, double step_time_totals::*term) noexcept;

run_summary summarize(const engine& e, std::string load, double wall_seconds);

}  // namespace kvscope
