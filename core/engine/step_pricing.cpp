#include "engine/step_pricing.hpp"

#include <algorithm>
#include <cmath>

namespace kvscope {
namespace {

// Attention reads of computing positions [a, b): the token at p attends to p + 1 tokens.
std::uint64_t reads_of(std::uint64_t a, std::uint64_t b) noexcept { return (b * (b + 1) - a * (a + 1)) / 2; }

}  // namespace

step_pricing::step_pricing(const engine_setup& setup, std::uint64_t fp16_bytes_per_token)
    : setup_(setup), fp16_bytes_per_token_(fp16_bytes_per_token) {}

double step_pricing::seconds(const step_work& work, std::uint64_t prefill_tokens,
                             std::uint64_t decode_tokens) const noexcept {
  if (setup_.timing) return setup_.timing->estimate(work).seconds;
  const auto& linear = setup_.options.timing;
  return linear.base_s + linear.per_prefill_token_s * static_cast<double>(prefill_tokens) +
         linear.per_decode_token_s * static_cast<double>(decode_tokens);
}

step_work step_pricing::piece(const step_work& step, std::uint64_t tokens, std::uint64_t sequences,
                              std::uint64_t context_reads, double kv_share) const noexcept {
  step_work w;
  w.tokens = tokens;
  w.sequences = sequences;
  w.context_token_reads = context_reads;
  for (std::size_t l = 0; l < w.kv_bytes_read_by_level.size(); ++l) {
    w.kv_bytes_read_by_level[l] =
        static_cast<std::uint64_t>(std::llround(static_cast<double>(step.kv_bytes_read_by_level[l]) * kv_share));
    w.kv_token_reads_by_level[l] =
        static_cast<std::uint64_t>(std::llround(static_cast<double>(step.kv_token_reads_by_level[l]) * kv_share));
  }
  w.kv_bytes_written = tokens * fp16_bytes_per_token_;
  w.scheduled_earlier = step.scheduled_earlier;
  return w;
}

double step_pricing::chunk_alone(const step_work& step, std::uint32_t from, std::uint32_t to,
                                 std::uint64_t all_context_tokens) const noexcept {
  const double share = all_context_tokens > 0 ? static_cast<double>(to) / static_cast<double>(all_context_tokens) : 0;
  return seconds(piece(step, to - from, 1, reads_of(from, to), std::min(share, 1.0)), to - from, 0);
}

decode_shares step_pricing::split(const step_work& step, std::uint64_t prefill_tokens,
                                  std::uint64_t decode_tokens, const decode_mix& decoding,
                                  std::uint64_t all_context_tokens, double seconds_total) const noexcept {
  decode_shares out;
  if (prefill_tokens == 0 && step.migration_bytes == 0) {
    out.own_s = seconds_total;
    return out;
  }
  step_work unmigrated = step;
  unmigrated.migration_bytes = 0;
  const double without_migration =
      step.migration_bytes == 0 ? seconds_total : std::min(seconds_total, seconds(unmigrated, prefill_tokens, decode_tokens));
  double own = 0;
  if (decode_tokens > 0) {
    const double share = all_context_tokens > 0
                             ? static_cast<double>(decoding.context_tokens) / static_cast<double>(all_context_tokens)
                             : 0;
    const step_work alone =
        piece(step, decode_tokens, decoding.sequences, decoding.context_token_reads, std::min(share, 1.0));
    own = prefill_tokens == 0 ? without_migration : std::min(without_migration, seconds(alone, 0, decode_tokens));
  }
  out.own_s = own;
  out.prefill_s = without_migration - own;
  out.migration_s = seconds_total - without_migration;
  return out;
}

double step_pricing::single_decode(std::uint64_t context) const noexcept {
  step_work w;
  w.tokens = 1;
  w.sequences = 1;
  w.context_token_reads = context;
  w.kv_bytes_read_by_level[0] = context * fp16_bytes_per_token_;
  w.kv_token_reads_by_level[0] = context;
  w.kv_bytes_written = fp16_bytes_per_token_;
  return seconds(w, 0, 1);
}

alone_latency step_pricing::alone(std::uint32_t prompt_tokens, std::uint32_t output_tokens) const noexcept {
  alone_latency out;
  const std::uint32_t chunk = std::max<std::uint32_t>(1, setup_.options.scheduler.max_num_batched_tokens);
  const std::uint32_t prompt = std::max<std::uint32_t>(prompt_tokens, 1);
  for (std::uint32_t from = 0; from < prompt; from += chunk) {
    const std::uint32_t to = std::min(prompt, from + std::min(chunk, prompt - from));
    step_work w;
    w.tokens = to - from;
    w.sequences = 1;
    w.context_token_reads = reads_of(from, to);
    w.kv_bytes_read_by_level[0] = std::uint64_t{to} * fp16_bytes_per_token_;
    w.kv_token_reads_by_level[0] = to;
    w.kv_bytes_written = w.tokens * fp16_bytes_per_token_;
    out.ttft_s += seconds(w, to - from, 0);
  }
  if (output_tokens < 2) {
    out.tpot_s = NAN;
    return out;
  }
  // Decode step j (1..output-1) reads prompt + j tokens; its time is close to linear in that.
  const std::uint64_t first = std::uint64_t{prompt} + 1, last = std::uint64_t{prompt} + output_tokens - 1;
  out.tpot_s = (single_decode(first) + 4 * single_decode((first + last) / 2) + single_decode(last)) / 6;
  return out;
}

}  // namespace kvscope
