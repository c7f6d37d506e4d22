#pragma once
// Why requests missed their SLOs (docs/why-requests-miss.md): each missed request is put under
// the one cause that cost it most time, from its latency_parts, unless it would have missed even
// alone on an idle server (known from the step model before it ran). The tally keeps, per cause,
// the misses it explains and the time the missed requests spent in it.
#include <array>
#include <cstdint>
#include <string_view>

#include "outcome/latency_parts.hpp"
#include "outcome/slo.hpp"

namespace kvscope {

enum class miss_cause : std::uint8_t {
  infeasible_alone,      // it would miss even alone on an idle server
  kv_memory,             // waited for room in the KV cache
  batch_slots,           // waited for one of max_num_seqs slots
  behind_prefills,       // waited behind other requests' prefill work for the step's tokens
  prefill_interference,  // its decode steps carried other requests' prefill chunks
  preemption,            // waited and recomputed after preemptions
  migration,             // its decode steps carried re-quantization
  own_work,              // its own prefill and batched decode: the GPU's pace at this load
  rejected,              // never served (too long, or larger than the pool)
};
inline constexpr std::size_t miss_cause_count = 9;

// "kv_memory": the key in the summary JSON.
std::string_view key_of(miss_cause c) noexcept;
// "queued for KV memory": words for people.
std::string_view describe(miss_cause c) noexcept;

// The latency a request would have alone on an idle server, from the step model.
struct alone_latency {
  double ttft_s = 0;
  double tpot_s = 0;  // NaN for a one-token output
};

// Whether a request of `output_tokens` that takes `alone` on an idle server misses `slo` even so.
bool infeasible_alone(const slo_spec& slo, std::uint32_t output_tokens, const alone_latency& alone) noexcept;

// Seconds of a request's parts (the TTFT parts when before_first_token, else the decode ones,
// both when `both`) under each cause.
std::array<double, miss_cause_count> seconds_by_cause(const latency_parts& parts, bool ttft, bool decode) noexcept;

struct slo_miss_tally {
  std::uint64_t missed = 0;  // finished and missing an SLO, or rejected
  std::array<std::uint64_t, miss_cause_count> requests{};  // misses each cause explains
  std::array<double, miss_cause_count> seconds{};          // missed requests' time in each cause

  // Adds a finished request; does nothing when it met the SLO.
  void add_finished(const slo_spec& slo, double ttft_s, double tpot_s, double e2e_s,
                    std::uint32_t output_tokens, const latency_parts& parts, const alone_latency& alone);
  void add_rejected();
};

// The cause of one missed request (see the file comment).
miss_cause dominant_cause(const slo_spec& slo, double ttft_s, double tpot_s, double e2e_s,
                          std::uint32_t output_tokens, const latency_parts& parts, const alone_latency& alone);

}  // namespace kvscope
