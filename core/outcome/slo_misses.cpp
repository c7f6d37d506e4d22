#include "outcome/slo_misses.hpp"

#include <cmath>

namespace kvscope {
namespace {

constexpr std::size_t index(miss_cause c) noexcept { return static_cast<std::size_t>(c); }

// The violated limit that is exceeded most, relatively: which of TTFT (0), TPOT (1) and e2e (2)
// the miss is about; -1 when every limit is met.
int worst_violation(const slo_spec& slo, double ttft_s, double tpot_s, double e2e_s) noexcept {
  const double tpot = std::isnan(tpot_s) ? 0.0 : tpot_s;  // as meets_slo counts a one-token output
  int worst = -1;
  double worst_ratio = 1;
  const auto consider = [&](int which, const std::optional<double>& limit, double value) {
    if (!limit) return;
    const double ratio = value / *limit;
    if (std::isnan(value) || ratio > worst_ratio) {
      worst = which;
      worst_ratio = std::isnan(value) ? INFINITY : ratio;
    }
  };
  consider(0, slo.ttft_s, ttft_s);
  consider(1, slo.tpot_s, tpot);
  consider(2, slo.e2e_s, e2e_s);
  return worst;
}

}  // namespace

bool infeasible_alone(const slo_spec& slo, std::uint32_t output_tokens, const alone_latency& alone) noexcept {
  const double tpot = std::isnan(alone.tpot_s) ? 0.0 : alone.tpot_s;
  const double e2e = alone.ttft_s + tpot * (output_tokens > 1 ? output_tokens - 1 : 0);
  return (slo.ttft_s && alone.ttft_s > *slo.ttft_s) || (slo.tpot_s && tpot > *slo.tpot_s) ||
         (slo.e2e_s && e2e > *slo.e2e_s);
}

std::string_view key_of(miss_cause c) noexcept {
  switch (c) {
    case miss_cause::infeasible_alone: return "infeasible_alone";
    case miss_cause::kv_memory: return "kv_memory";
    case miss_cause::batch_slots: return "batch_slots";
    case miss_cause::behind_prefills: return "behind_prefills";
    case miss_cause::prefill_interference: return "prefill_interference";
    case miss_cause::preemption: return "preemption";
    case miss_cause::migration: return "migration";
    case miss_cause::own_work: return "own_work";
    case miss_cause::rejected: return "rejected";
  }
  return "unknown";
}

std::string_view describe(miss_cause c) noexcept {
  switch (c) {
    case miss_cause::infeasible_alone: return "would miss even alone on an idle server";
    case miss_cause::kv_memory: return "queued for KV memory";
    case miss_cause::batch_slots: return "queued for batch slots (max_num_seqs)";
    case miss_cause::behind_prefills: return "behind other requests' prefills";
    case miss_cause::prefill_interference: return "prefill chunks in its decode steps";
    case miss_cause::preemption: return "preempted and recomputed";
    case miss_cause::migration: return "re-quantization in its decode steps";
    case miss_cause::own_work: return "its own batched work: the GPU's pace at this load";
    case miss_cause::rejected: return "rejected, never served";
  }
  return "unknown";
}

std::array<double, miss_cause_count> seconds_by_cause(const latency_parts& p, bool ttft, bool decode) noexcept {
  std::array<double, miss_cause_count> s{};
  if (ttft) {
    s[index(miss_cause::kv_memory)] += p.wait_kv_memory_s;
    s[index(miss_cause::batch_slots)] += p.wait_batch_slots_s;
    s[index(miss_cause::behind_prefills)] += p.arrival_step_s + p.wait_token_budget_s + p.prefill_batched_s;
    s[index(miss_cause::preemption)] += p.wait_preempted_s + p.recompute_s;
    s[index(miss_cause::own_work)] += p.prefill_s;
  }
  if (decode) {
    s[index(miss_cause::prefill_interference)] += p.decode_prefill_s;
    s[index(miss_cause::migration)] += p.decode_migration_s;
    s[index(miss_cause::preemption)] += p.decode_preempted_s;
    s[index(miss_cause::own_work)] += p.decode_s;
  }
  return s;
}

miss_cause dominant_cause(const slo_spec& slo, double ttft_s, double tpot_s, double e2e_s,
                          std::uint32_t output_tokens, const latency_parts& parts, const alone_latency& alone) {
  if (infeasible_alone(slo, output_tokens, alone)) return miss_cause::infeasible_alone;
  const int worst = worst_violation(slo, ttft_s, tpot_s, e2e_s);
  const auto by_cause = seconds_by_cause(parts, worst != 1, worst != 0);
  // The limit in the same units as by_cause: TPOT's is per token, the parts are over all tokens.
  const double limit = worst == 0   ? slo.ttft_s.value_or(INFINITY)
                       : worst == 1 ? slo.tpot_s.value_or(INFINITY) * (output_tokens > 1 ? output_tokens - 1 : 0)
                                    : slo.e2e_s.value_or(INFINITY);
  // When even without any waiting or sharing its own batched work exceeds the limit, the pace of
  // the GPU at this batch is the cause; otherwise the largest avoidable part.
  if (by_cause[index(miss_cause::own_work)] > limit) return miss_cause::own_work;
  miss_cause best = miss_cause::own_work;
  double best_s = -1;
  for (std::size_t c = 0; c < miss_cause_count; ++c) {
    const auto cause = static_cast<miss_cause>(c);
    if (cause == miss_cause::own_work) continue;
    if (by_cause[c] > best_s) {
      best_s = by_cause[c];
      best = cause;
    }
  }
  return best_s > 0 ? best : miss_cause::own_work;
}

void slo_miss_tally::add_finished(const slo_spec& slo, double ttft_s, double tpot_s, double e2e_s,
                                  std::uint32_t output_tokens, const latency_parts& parts,
                                  const alone_latency& alone) {
  if (slo.empty() || meets_slo(slo, ttft_s, tpot_s, e2e_s)) return;
  ++missed;
  ++requests[index(dominant_cause(slo, ttft_s, tpot_s, e2e_s, output_tokens, parts, alone))];
  const auto s = seconds_by_cause(parts, true, true);
  for (std::size_t c = 0; c < miss_cause_count; ++c) seconds[c] += s[c];
}

void slo_miss_tally::add_rejected() {
  ++missed;
  ++requests[index(miss_cause::rejected)];
}

}  // namespace kvscope
