#pragma once
// Prices pieces of a step with the run's step-time model (the roofline, or the linear model
// without a GPU), to share a step's time among the requests in it (outcome/latency_parts.hpp)
// and to say what a request would take alone on an idle server. A piece of a step is priced as
// a step of its own: its tokens, its sequences, its attention reads, and the share of the step's
// KV reads its sequences' context makes up.
#include <cstdint>

#include "engine/engine_setup.hpp"
#include "model/roofline.hpp"
#include "outcome/latency_parts.hpp"
#include "outcome/slo_misses.hpp"

namespace kvscope {

struct step_plan;

// What the decoding sequences of a step did, beside the step's totals.
struct decode_mix {
  std::uint64_t sequences = 0;
  std::uint64_t context_token_reads = 0;
  std::uint64_t context_tokens = 0;  // their contexts after the step, summed
};

class step_pricing {
 public:
  // fp16_bytes_per_token: one token's K and V in every layer at fp16 (what a request alone reads).
  step_pricing(const engine_setup& setup, std::uint64_t fp16_bytes_per_token);

  // The step model's time for `work` of prefill_tokens + decode_tokens tokens.
  double seconds(const step_work& work, std::uint64_t prefill_tokens, std::uint64_t decode_tokens) const noexcept;

  // A prefill chunk of tokens [from, to) alone, when the step's scheduled sequences' contexts
  // sum to all_context_tokens (its share of the step's KV reads is to / that).
  double chunk_alone(const step_work& step, std::uint32_t from, std::uint32_t to,
                     std::uint64_t all_context_tokens) const noexcept;

  // The step's `seconds` shared among its decoding sequences: the step with only their tokens,
  // what the prefill tokens add, what migration adds.
  decode_shares split(const step_work& step, std::uint64_t prefill_tokens, std::uint64_t decode_tokens,
                      const decode_mix& decoding, std::uint64_t all_context_tokens, double seconds) const noexcept;

  // A request alone on an idle server: its prompt in chunks of max_num_batched_tokens, then
  // its decode steps (Simpson's rule over the context it grows through), all KV at fp16.
  alone_latency alone(std::uint32_t prompt_tokens, std::uint32_t output_tokens) const noexcept;

 private:
  step_work piece(const step_work& step, std::uint64_t tokens, std::uint64_t sequences,
                  std::uint64_t context_reads, double kv_share) const noexcept;
  double single_decode(std::uint64_t context) const noexcept;

  const engine_setup& setup_;
  std::uint64_t fp16_bytes_per_token_;  // also what each new token writes (new tokens land at fp16)
};

}  // namespace kvscope
