#include "run/run_summary.hpp"

#include <cmath>

#include "engine/engine.hpp"
#include "util/byte_size.hpp"

namespace kvscope {
namespace {

double relative(double error, double reference) {
  return reference > 0 ? std::sqrt(error / reference) : NAN;
}

}  // namespace

run_summary summarize(const engine& e, std::string load, double wall_seconds) {
  const auto& t = e.totals();
  run_summary s;
  s.model = e.options().model;
  s.load = std::move(load);
  s.budget_bytes = e.cache().pool().budget_bytes();
  s.requests_total = t.requests_total;
  s.requests_finished = t.requests_finished;
  s.requests_rejected = t.requests_rejected;
  s.preemptions = t.preemptions;
  s.level_transitions = t.level_transitions;
  s.peak_usage = t.peak_usage;
  s.steps = e.steps_done();
  s.mean_usage = s.steps ? t.usage_sum / static_cast<double>(s.steps) : 0;
  s.sim_seconds = e.sim_time_s();
  s.transitions_per_hour =
      s.sim_seconds > 0 ? 3600.0 * static_cast<double>(s.level_transitions) / s.sim_seconds : 0;
  s.wall_seconds = wall_seconds;
  s.decode_token_steps = t.decode_token_steps;
  s.decode_token_steps_per_s =
      wall_seconds > 0 ? static_cast<double>(t.decode_token_steps) / wall_seconds : 0;
  s.prefix_cache_hit_rate =
      t.prefix.queries ? static_cast<double>(t.prefix.hits) / static_cast<double>(t.prefix.queries) : 0;
  s.peak_bytes_per_level = t.peak_bytes_per_level;
  s.peak_scale_bytes = t.peak_scale_bytes;
  s.migrated_blocks = t.migrated_blocks;
  s.final_level = e.level();
  s.gpu = e.setup().gpu ? e.setup().gpu->name : "";
  s.timing = e.setup().timing ? "roofline" : "linear";
  s.tensor_parallel = e.options().tensor_parallel;
  s.vllm_v0 = e.options().vllm_engine == vllm_engine_kind::v0;
  s.slo = e.options().slo;
  if (e.options().q4_storage != q4_format::q4) {
    const tier_layout& q4 = e.cache().pool().layout(precision::q4);
    s.q4_format = tag(e.options().q4_storage);
    s.q4o_channels = e.options().q4o_channels;
    s.q4_block_payload_bytes = q4.payload_bytes;
    s.q4_block_side_bytes = q4.scale_bytes;
  }
  if (const auto& chosen = e.setup().budget_auto) {
    s.budget_note = "auto: " + format_byte_size(chosen->usable_bytes_per_gpu) + " usable per GPU - " +
                    format_byte_size(chosen->weight_bytes_per_gpu) + " weights - " +
                    format_byte_size(chosen->activation_reserve_bytes) + " activations";
    if (e.options().tensor_parallel > 1) s.budget_note += ", x" + std::to_string(e.options().tensor_parallel) + " GPUs";
  }
  s.service = e.outcomes().summary(s.sim_seconds);
  s.demand.busy_s = t.step_seconds_sum;
  s.demand.arrival_span_s = t.first_arrival_s < 0 ? 0 : t.last_arrival_s - t.first_arrival_s;
  s.demand.busy_while_arriving_s = t.step_seconds_by_last_arrival;
  s.demand.waiting_at_last_arrival = t.waiting_at_last_arrival;
  s.demand.requests = t.requests_total;
  s.levers = advise(s.service.misses, e.options(), s.peak_usage, s.demand);
  s.attention_error_exposure =
      t.exposure_steps ? t.exposure_sum / static_cast<double>(t.exposure_steps) : 0;
  s.attention_error_measured = relative(t.attention_squared_error_all, t.attention_squared_reference_all);
  s.step_terms = t.step_terms;
  for (std::size_t l = 0; l < kv_level_count; ++l) {
    s.quant_rel_rmse[l] = relative(t.quant_squared_error[l], t.quant_squared_reference[l]);
    s.attention_rel_l2[l] = relative(t.attention_squared_error[l], t.attention_squared_reference[l]);
  }
  return s;
}

double step_time_share(const run_summary& s, double step_time_totals::*term) noexcept {
  if (s.timing != "roofline" || !(s.demand.busy_s > 0)) return NAN;
  return s.step_terms.*term / s.demand.busy_s;
}

}  // namespace kvscope
