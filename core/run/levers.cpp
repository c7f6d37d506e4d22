#include "run/levers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "util/number_text.hpp"

namespace kvscope {
namespace {

constexpr std::size_t index(miss_cause c) noexcept { return static_cast<std::size_t>(c); }

// The cause that explains most misses; ties go to the one that cost them more time.
miss_cause main_cause(const slo_miss_tally& m) noexcept {
  std::size_t best = index(miss_cause::own_work);
  for (std::size_t c = 0; c < miss_cause_count; ++c) {
    if (m.requests[c] > m.requests[best] || (m.requests[c] == m.requests[best] && m.seconds[c] > m.seconds[best])) {
      best = c;
    }
  }
  return static_cast<miss_cause>(best);
}

// The values at least `floor`, without repeats, comma-separated.
std::string list(std::initializer_list<std::uint64_t> values, std::uint64_t floor = 1) {
  std::string out;
  std::uint64_t last = 0;
  for (const auto v : values) {
    if (v < floor || v == last) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(v);
    last = v;
  }
  return out;
}

std::string budgets(std::uint64_t budget) {
  if (budget == 0) return "";  // auto: the GPU's memory sets it, not a knob
  std::string out;
  for (const double f : {1.0, 1.5, 2.0, 3.0}) {
    if (!out.empty()) out += ',';
    // No space inside a value: a search space separates its axes by spaces.
    out += format_significant(static_cast<double>(budget) * f / double(1ull << 30), 3) + "GiB";
  }
  return "budget=" + out;
}

std::string memory_space(const engine_options& o) {
  std::string space = budgets(o.budget_bytes);
  if (o.policy.family == policy_family::ewma) {
    if (!space.empty()) space += ' ';
    space += "q8-threshold=0.5:0.9:0.1 q4-threshold=0.8:1:0.05";
  }
  return space;
}

// Says so when no missed request waited for the KV cache.
void add_kv_note(lever_advice& a, const slo_miss_tally& misses, double peak_usage) {
  const double memory_seconds = misses.seconds[index(miss_cause::kv_memory)] + misses.seconds[index(miss_cause::preemption)];
  if (memory_seconds == 0 && misses.requests[index(miss_cause::rejected)] == 0) {
    a.kv_note = "No missed request waited for the KV cache (peak usage " + format_significant(100 * peak_usage, 3) +
                " %): its policy and precision do not cause these misses.";
  }
}

// Causes that are the GPU's pace: under a sustained overload, waiting behind others' prefills or
// sharing steps with them is the backlog's doing, and no scheduling setting removes the backlog.
// Waits for memory or batch slots stay theirs: raising those limits raises throughput.
bool paced_by_compute(miss_cause c) noexcept {
  return c == miss_cause::behind_prefills || c == miss_cause::prefill_interference || c == miss_cause::own_work;
}

void advise_overload(lever_advice& a, const engine_options& o, const server_demand& d) {
  const double ratio = d.ratio();
  a.overloaded = true;
  a.advice = "The load outruns this server: its steps took " + format_significant(d.busy_s, 4) +
             " s for requests that arrived over " + format_significant(d.arrival_span_s, 4) + " s (" +
             format_significant(ratio, 3) +
             "x), so requests queue behind a backlog that only grows; no scheduling or cache setting removes it. "
             "Just keeping up takes under " + format_significant(100 / ratio, 3) +
             " % of its rate (meeting the SLOs, less: tune --objective max:capacity_rps finds the rate), " +
             std::to_string(static_cast<std::uint64_t>(std::ceil(ratio))) +
             " or more replicas, or more tensor-parallel GPUs or a faster GPU.";
  const std::uint64_t tp = o.tensor_parallel;
  a.space = "tp=" + list({tp, 2 * tp, 4 * tp});
}

}  // namespace

double server_demand::ratio() const noexcept {
  return arrival_span_s > 0 ? busy_s / arrival_span_s : NAN;
}

double server_demand::backlog_share() const noexcept {
  return requests > 0 ? static_cast<double>(waiting_at_last_arrival) / static_cast<double>(requests) : 0;
}

bool server_demand::overloaded() const noexcept {
  return arrival_span_s > 0 && busy_while_arriving_s >= 0.95 * arrival_span_s && ratio() >= 1.1 &&
         waiting_at_last_arrival >= 10 && backlog_share() >= 0.1;
}

std::string_view main_cause_key(const lever_advice& advice) noexcept {
  return advice.overloaded ? std::string_view("overloaded") : key_of(advice.cause);
}

namespace {

// Without chunked prefill, whole prompts run in steps of their own and the decodes wait them out;
// the token budget cannot go below max_model_len there, so the lever is chunking itself.
void advise_unchunked(lever_advice& a, std::uint32_t chunk) {
  a.advice = a.cause == miss_cause::prefill_interference
                 ? "Decodes wait while whole prompts run in steps of their own (chunked prefill is off): chunked "
                   "prefill lets them run beside the prompts' chunks."
                 : "Requests wait behind other whole prompts (chunked prefill is off): chunked prefill, or a "
                   "larger max_num_batched_tokens (now " + std::to_string(chunk) + "), admits them sooner.";
  a.space = "chunked-prefill=false,true max-num-batched-tokens=" + list({chunk, 2ull * chunk});
}

}  // namespace

lever_advice advise(const slo_miss_tally& misses, const engine_options& o, double peak_usage,
                    const server_demand& demand) {
  lever_advice a;
  if (misses.missed == 0) return a;
  a.cause = main_cause(misses);
  if (paced_by_compute(a.cause) && demand.overloaded()) {
    advise_overload(a, o, demand);
    add_kv_note(a, misses, peak_usage);
    return a;
  }
  const std::uint32_t chunk = o.scheduler.max_num_batched_tokens;
  const std::uint32_t seqs = o.scheduler.max_num_seqs;
  switch (a.cause) {
    case miss_cause::infeasible_alone:
      a.advice = "No scheduling or cache setting helps these: alone on an idle server they already miss. "
                 "A faster GPU, more tensor-parallel GPUs (tp) or a looser SLO would.";
      a.space = "tp=1,2,4";
      break;
    case miss_cause::kv_memory:
    case miss_cause::preemption:
      a.advice = "The KV cache runs out: a larger budget, or compressing sooner (lower q8/q4 thresholds) "
                 "so that more requests fit, acts on it.";
      a.space = memory_space(o);
      break;
    case miss_cause::batch_slots:
      a.advice = "max_num_seqs (" + std::to_string(seqs) + ") binds before memory does: raise it.";
      a.space = "max-num-seqs=" + list({seqs, 2ull * seqs, 4ull * seqs, 8ull * seqs, 16ull * seqs});
      break;
    case miss_cause::behind_prefills:
    case miss_cause::prefill_interference:
      if (!o.scheduler.chunked_prefill) {
        advise_unchunked(a, chunk);
        break;
      }
      if (a.cause == miss_cause::prefill_interference) {
        a.advice = "Decode steps carry other requests' prefill chunks: a smaller max_num_batched_tokens (now " +
                   std::to_string(chunk) + ") keeps each step short.";
        // Not below max_num_seqs: vLLM refuses a token budget smaller than its sequence limit.
        a.space = "max-num-batched-tokens=" + list({chunk / 16, chunk / 8, chunk / 4, chunk / 2, chunk}, seqs);
        break;
      }
      a.advice = "Requests wait behind other prompts for the step's token budget: max_num_batched_tokens (" +
                 std::to_string(chunk) + ") sets how much prefill a step takes; try both ways.";
      a.space = "max-num-batched-tokens=" + list({chunk / 2, chunk, 2ull * chunk, 4ull * chunk}, seqs);
      break;
    case miss_cause::migration:
      a.advice = "Re-quantizing blocks lengthens decode steps: a wider hysteresis or a smaller migration batch "
                 "spreads it out.";
      a.space = "hysteresis=0.02,0.05,0.1 migration-batch=" + list({o.migration_batch / 4, o.migration_batch / 2, o.migration_batch});
      break;
    case miss_cause::own_work:
      a.advice = "Batched decode is too slow at this load: fewer sequences per step (max_num_seqs), KV read at "
                 "a more compact level, or a faster GPU or more tensor-parallel GPUs.";
      a.space = "max-num-seqs=" + list({seqs / 4, seqs / 2, seqs});
      break;
    case miss_cause::rejected:
      a.advice = "Requests were refused: longer than max_model_len or larger than the whole KV pool; a larger "
                 "budget or max_model_len serves them.";
      a.space = budgets(o.budget_bytes);
      break;
  }
  add_kv_note(a, misses, peak_usage);
  return a;
}

}  // namespace kvscope
