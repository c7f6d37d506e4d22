#include "run/metric_table.hpp"

#include <charconv>
#include <cmath>
#include <vector>

#include "outcome/latency_samples.hpp"
#include "util/number_text.hpp"

namespace kvscope {

// latency_percentiles' meaning names the limit.
static_assert(latency_samples::default_exact_limit == 65536);

namespace {

// NaN (not measured) is spelled "nan" whatever its sign bit.
void append_double(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
    return;
  }
  append_shortest(out, v);
}

void append_uint(std::string& out, std::uint64_t v) { append_shortest(out, v); }

constexpr auto higher = better_when::higher;
constexpr auto lower = better_when::lower;
constexpr auto neither = better_when::neither;

// Step metrics: a member as a column. The per-level arrays are expanded below.
#define KV_STEP_UINT(member, unit, meaning, better)                                        \
  step_metric {                                                                           \
    {#member, unit, meaning, better},                                                     \
        [](std::string& out, const step_metrics& m) { append_uint(out, m.member); }       \
  }
#define KV_STEP_REAL(member, unit, meaning, better)                                        \
  step_metric {                                                                           \
    {#member, unit, meaning, better},                                                     \
        [](std::string& out, const step_metrics& m) { append_double(out, m.member); }     \
  }
// The reference runtime's four levels in order, each as M(level, ...): the per-level columns of
// both tables fan out through it (q3, kvscope's own level, is added last on its own).
#define KV_REFERENCE_LEVELS(M, ...) \
  M(fp16, __VA_ARGS__), M(q8, __VA_ARGS__), M(fp8, __VA_ARGS__), M(q4, __VA_ARGS__)
// One level's column of a per-level array.
#define KV_LEVEL(level, prefix, array, append_fn, unit, meaning, better)                               \
  step_metric {                                                                                      \
    {prefix #level, unit, meaning, better}, [](std::string& out, const step_metrics& m) {            \
      append_fn(out, m.array[ordinal(precision::level)]);                                            \
    }                                                                                                \
  }

// The meanings of the per-level columns, said once for the four levels and for q3.
constexpr std::string_view bytes_meaning =
    "Pool bytes held by blocks of this level (empty halves/quarters/fifths of split frames included)";
constexpr std::string_view step_rmse_meaning =
    "Data mode: relative RMSE of dequantized vs original K/V at this level (nan: not measured)";
constexpr std::string_view step_l2_meaning =
    "Data mode: relative L2 error of decode attention at this level (nan: not measured)";
constexpr std::string_view bytes_read_meaning =
    "KV bytes this step's attention read from blocks at this level, scales included";

const std::vector<step_metric>& steps() {
  static const std::vector<step_metric> t = {
      KV_STEP_UINT(step, "", "Step index, from 0", neither),
      KV_STEP_REAL(sim_time_s, "s", "Simulated clock after the step", neither),
      KV_STEP_REAL(kv_cache_usage_perc, "", "KV bytes referenced by sequences / budget (vLLM's)", neither),
      KV_STEP_REAL(pressure_ewma, "", "The policy's smoothed pressure after observing the step (ewma family; 0 for the others)", neither),
      step_metric{{"level", "", "The ewma controller's level after the step; for the other families the most compact level a block held by a sequence is at", neither},
                  [](std::string& out, const step_metrics& m) { out += tag(m.level); }},
      KV_REFERENCE_LEVELS(KV_LEVEL, "bytes_", bytes_per_level, append_uint, "bytes", bytes_meaning, neither),
      KV_STEP_UINT(scale_bytes, "bytes", "Bytes of quantization scales", neither),
      KV_STEP_UINT(free_bytes, "bytes", "Free bytes of the budget", neither),
      KV_STEP_UINT(cached_bytes, "bytes",
                   "Of the bytes held, those only the prefix cache keeps: evicted on demand, so not in kv_cache_usage_perc",
                   neither),
      KV_STEP_UINT(num_requests_running, "requests", "Sequences running (vLLM's)", neither),
      KV_STEP_UINT(num_requests_waiting, "requests", "Requests waiting (vLLM's)", neither),
      KV_STEP_UINT(num_preemptions_total, "preemptions", "Preemptions so far (vLLM's)", lower),
      KV_STEP_UINT(level_transitions_total, "transitions", "Policy level changes so far (the ewma controller's; 0 for the other families)", lower),
      KV_STEP_UINT(prefix_cache_hits, "tokens", "Prompt tokens found in the prefix cache so far (vLLM's)", higher),
      KV_STEP_UINT(prefix_cache_queries, "tokens", "Prompt tokens looked up in the prefix cache so far (vLLM's)", neither),
      KV_STEP_UINT(decode_tokens, "tokens", "Tokens decoded in this step", neither),
      KV_STEP_UINT(prefill_tokens, "tokens", "Prompt tokens computed in this step", neither),
      KV_STEP_UINT(requests_finished_total, "requests", "Requests finished so far", higher),
      KV_REFERENCE_LEVELS(KV_LEVEL, "quant_rel_rmse_", quant_rel_rmse, append_double, "", step_rmse_meaning, lower),
      KV_REFERENCE_LEVELS(KV_LEVEL, "attention_rel_l2_", attention_rel_l2, append_double, "", step_l2_meaning, lower),
      KV_STEP_REAL(step_seconds, "s", "Simulated duration of this step", lower),
      KV_REFERENCE_LEVELS(KV_LEVEL, "kv_bytes_read_", kv_bytes_read, append_uint, "bytes", bytes_read_meaning, neither),
      KV_STEP_REAL(attention_error_exposure, "",
                   "Expected relative attention error: share of KV reads at each level x its calibrated error",
                   lower),
      // q3, kvscope's own level, came after the columns above: appended so that every column
      // before keeps its place for whatever reads the CSV by position.
      KV_LEVEL(q3, "bytes_", bytes_per_level, append_uint, "bytes", bytes_meaning, neither),
      KV_LEVEL(q3, "quant_rel_rmse_", quant_rel_rmse, append_double, "", step_rmse_meaning, lower),
      KV_LEVEL(q3, "attention_rel_l2_", attention_rel_l2, append_double, "", step_l2_meaning, lower),
      KV_LEVEL(q3, "kv_bytes_read_", kv_bytes_read, append_uint, "bytes", bytes_read_meaning, neither),
  };
  return t;
}

#undef KV_STEP_UINT
#undef KV_STEP_REAL
#undef KV_LEVEL

#define KV_SUM(member, unit, meaning, better)                                              \
  summary_metric {                                                                        \
    {#member, unit, meaning, better}, [](const run_summary& s) -> metric_value {          \
      return s.member;                                                                    \
    }                                                                                     \
  }
// One level's figure of a per-level array (KV_REFERENCE_LEVELS fans it out over four).
#define KV_SUM_LEVEL(level, prefix, suffix, array, unit, meaning, better)                                \
  summary_metric {                                                                                      \
    {prefix #level suffix, unit, meaning, better}, [](const run_summary& s) -> metric_value {           \
      return s.array[ordinal(precision::level)];                                                        \
    }                                                                                                   \
  }

constexpr std::string_view peak_bytes_meaning = "Most pool bytes this level held at any step";
constexpr std::string_view summary_rmse_meaning =
    "Data mode: relative RMSE of dequantized K/V at this level (null: never measured)";
constexpr std::string_view summary_l2_meaning =
    "Data mode: relative L2 error of decode attention at this level (null: never measured)";

#define KV_SERVICE(member, unit, meaning, better)                                          \
  summary_metric {                                                                        \
    {#member, unit, meaning, better}, [](const run_summary& s) -> metric_value {          \
      return s.service.member;                                                            \
    }                                                                                     \
  }
#define KV_LATENCY(kind, stat, meaning)                                                    \
  summary_metric {                                                                        \
    {"latency." #kind "." #stat, "s", meaning, lower},                                    \
        [](const run_summary& s) -> metric_value { return s.service.latency.kind.stat; }  \
  }
#define KV_LATENCY_STATS(kind, meaning)                                                           \
  KV_LATENCY(kind, mean, meaning " (mean)"), KV_LATENCY(kind, p50, meaning " (median)"),          \
      KV_LATENCY(kind, p90, meaning " (90th percentile)"),                                        \
      KV_LATENCY(kind, p99, meaning " (99th percentile)"), KV_LATENCY(kind, max, meaning " (max)")

// SLO misses explained (outcome/slo_misses.hpp): the misses a cause explains and the missed
// requests' time in it.
#define KV_MISS(cause, meaning)                                                                         \
  summary_metric{{"slo_misses." #cause ".requests", "requests", "SLO misses explained by: " meaning, lower}, \
                 [](const run_summary& s) -> metric_value {                                            \
                   return s.service.misses.requests[static_cast<std::size_t>(miss_cause::cause)];      \
                 }},                                                                                    \
      summary_metric {                                                                                  \
    {"slo_misses." #cause ".seconds", "s", "Time the missed requests spent: " meaning, lower},           \
        [](const run_summary& s) -> metric_value {                                                      \
          return s.service.misses.seconds[static_cast<std::size_t>(miss_cause::cause)];                \
        }                                                                                               \
  }

// Roofline runs: the share of the step time a term of the model took (model/roofline.hpp).
#define KV_STEP_TERM(term, meaning)                                                                   \
  summary_metric {                                                                                    \
    {"step_time_share." #term, "", "Roofline: share of the step time in " meaning " (null: linear timing)", neither}, \
        [](const run_summary& s) -> metric_value { return step_time_share(s, &step_time_totals::term); } \
  }

const std::vector<summary_metric>& summaries() {
  static const std::vector<summary_metric> t = {
      KV_SUM(model, "", "Model the run used", neither),
      KV_SUM(load, "", "Load spec or trace the run read", neither),
      KV_SUM(budget_bytes, "bytes", "KV cache budget", neither),
      KV_SUM(requests_total, "requests", "Requests that arrived", neither),
      KV_SUM(requests_finished, "requests", "Requests finished", higher),
      KV_SUM(requests_rejected, "requests", "Requests rejected (could never fit)", lower),
      KV_SUM(preemptions, "preemptions", "Sequences preempted (recompute)", lower),
      KV_SUM(level_transitions, "transitions", "Policy level changes", lower),
      KV_SUM(transitions_per_hour, "transitions/h", "Policy level changes per simulated hour", lower),
      KV_SUM(peak_usage, "", "Highest kv_cache_usage_perc of any step", neither),
      KV_SUM(mean_usage, "", "Mean kv_cache_usage_perc over the steps", neither),
      KV_SUM(steps, "steps", "Engine steps run", neither),
      KV_SUM(sim_seconds, "s", "Simulated time the run took", lower),
      KV_SUM(wall_seconds, "s", "Wall-clock time the engine took (this machine; not a result)", neither),
      KV_SUM(decode_token_steps, "tokens", "Tokens decoded over the run", neither),
      KV_SUM(decode_token_steps_per_s, "tokens/s", "Decoded tokens per wall-clock second (engine speed, not a result)", neither),
      KV_SUM(prefix_cache_hit_rate, "", "Prefix cache hits / queries, in tokens", higher),
      summary_metric{{"final_level", "", "The policy's level at the end (as the step metric level)", neither},
                     [](const run_summary& s) -> metric_value { return std::string(tag(s.final_level)); }},
      KV_SUM(migrated_blocks, "blocks", "Cold blocks re-quantized by migration", neither),
      KV_REFERENCE_LEVELS(KV_SUM_LEVEL, "peak_bytes_per_level.", "", peak_bytes_per_level, "bytes", peak_bytes_meaning, neither),
      KV_SUM(peak_scale_bytes, "bytes", "Most bytes of quantization scales at any step", neither),
      KV_REFERENCE_LEVELS(KV_SUM_LEVEL, "quality.", ".quant_rel_rmse", quant_rel_rmse, "", summary_rmse_meaning, lower),
      KV_REFERENCE_LEVELS(KV_SUM_LEVEL, "quality.", ".attention_rel_l2", attention_rel_l2, "", summary_l2_meaning, lower),
      KV_SUM(gpu, "", "GPU the roofline timing modelled (empty: none)", neither),
      KV_SUM(timing, "", "Step-time model: linear or roofline", neither),
      KV_SUM(tensor_parallel, "GPUs", "Tensor-parallel GPUs", neither),
      KV_SUM(slo, "", "SLOs goodput counts against (empty: none)", neither),
      KV_LATENCY_STATS(ttft_s, "Time to first token of finished requests"),
      KV_LATENCY_STATS(tpot_s, "Time per output token after the first (requests of 2+ tokens)"),
      KV_LATENCY_STATS(itl_s, "Inter-token latency, every gap (within 0.5 %)"),
      KV_LATENCY_STATS(e2e_s, "End-to-end latency of finished requests"),
      KV_LATENCY_STATS(queue_s, "Queue time: first scheduled - arrival"),
      summary_metric{{"latency_percentiles", "", "exact, or sketched (within 0.5 %) once more than 65,536 requests finished, to hold memory constant (TTFT, TPOT, e2e, queue; ITL is always sketched)", neither},
                     [](const run_summary& s) -> metric_value { return std::string(s.service.latency_exact ? "exact" : "sketched"); }},
      KV_SERVICE(requests_per_s, "requests/s", "Finished requests per simulated second", higher),
      KV_SERVICE(output_tokens_per_s, "tokens/s", "Output tokens of finished requests per simulated second", higher),
      KV_SERVICE(goodput_rps, "requests/s", "Finished requests per second that met every SLO (DistServe)", higher),
      KV_SERVICE(slo_attainment, "", "Share of finished and rejected requests that met every SLO", higher),
      KV_SERVICE(recomputed_tokens, "tokens", "Tokens computed again after preemptions", lower),
      summary_metric{{"load_demand", "", "Step time the run took / the span its requests arrived over (above 1: steps went on after the last arrival; null: all arrived at once)", lower},
                     [](const run_summary& s) -> metric_value { return s.demand.ratio(); }},
      summary_metric{{"backlog_at_last_arrival", "", "Share of the requests still waiting for admission when the last one arrived", lower},
                     [](const run_summary& s) -> metric_value { return s.demand.backlog_share(); }},
      summary_metric{{"slo_misses.missed", "requests", "Requests that missed an SLO or were rejected (0 with no SLO)", lower},
                     [](const run_summary& s) -> metric_value { return s.service.misses.missed; }},
      KV_MISS(infeasible_alone, "would miss even alone on an idle server"),
      KV_MISS(kv_memory, "queued for room in the KV cache"),
      KV_MISS(batch_slots, "queued for one of max_num_seqs slots"),
      KV_MISS(behind_prefills, "behind other requests' prefill work"),
      KV_MISS(prefill_interference, "other requests' prefill chunks in its decode steps"),
      KV_MISS(preemption, "preempted, waiting and recomputing"),
      KV_MISS(migration, "re-quantization in its decode steps"),
      KV_MISS(own_work, "its own prefill and batched decode"),
      KV_MISS(rejected, "rejected, never served"),
      summary_metric{{"slo_misses.main_cause", "", "The cause that explains most misses, or overloaded (empty: none missed)", neither},
                     [](const run_summary& s) -> metric_value {
                       return s.service.misses.missed ? std::string(main_cause_key(s.levers)) : std::string();
                     }},
      summary_metric{{"slo_misses.lever", "", "Which options act on the main cause, and how", neither},
                     [](const run_summary& s) -> metric_value { return s.levers.advice; }},
      summary_metric{{"slo_misses.tune_space", "", "A search space for tune or sweep on those options", neither},
                     [](const run_summary& s) -> metric_value { return s.levers.space; }},
      summary_metric{{"slo_misses.kv_note", "", "Said when the KV cache held no missed request back", neither},
                     [](const run_summary& s) -> metric_value { return s.levers.kv_note; }},
      KV_SUM(attention_error_exposure, "", "Mean expected relative attention error from the levels KV was read at", lower),
      KV_SUM(attention_error_measured, "", "Data mode: relative L2 attention error of sampled sequences (null: not measured)", lower),
      // q3, kvscope's own level, last: a sweep CSV's columns before keep their places, and the
      // JSON still nests these beside the other levels (peak_bytes_per_level.q3, quality.q3).
      KV_SUM_LEVEL(q3, "peak_bytes_per_level.", "", peak_bytes_per_level, "bytes", peak_bytes_meaning, neither),
      KV_SUM_LEVEL(q3, "quality.", ".quant_rel_rmse", quant_rel_rmse, "", summary_rmse_meaning, lower),
      KV_SUM_LEVEL(q3, "quality.", ".attention_rel_l2", attention_rel_l2, "", summary_l2_meaning, lower),
      KV_STEP_TERM(matmuls, "matmuls (weight reads or FLOPs, the slower)"),
      KV_STEP_TERM(attention, "attention (KV reads and re-quantization, or FLOPs, the slower)"),
      KV_STEP_TERM(all_reduces, "tensor-parallel all-reduces"),
      KV_STEP_TERM(elementwise, "norms, rotary embedding and activations"),
      KV_STEP_TERM(overheads, "host time per step and sequence and launch gaps per layer"),
  };
  return t;
}

#undef KV_SUM
#undef KV_SUM_LEVEL
#undef KV_REFERENCE_LEVELS
#undef KV_LATENCY
#undef KV_LATENCY_STATS
#undef KV_MISS
#undef KV_STEP_TERM

}  // namespace

std::span<const step_metric> step_metric_table() { return steps(); }
std::span<const summary_metric> summary_metric_table() { return summaries(); }

const metric_info* find_metric(std::string_view key) {
  for (const auto& m : steps()) {
    if (m.info.key == key) return &m.info;
  }
  for (const auto& m : summaries()) {
    if (m.info.key == key) return &m.info;
  }
  return nullptr;
}

}  // namespace kvscope
