#pragma once
// What became of one request, as its row of the per-request CSV: times in simulated seconds since
// the load's start, NaN where a time or latency is undefined (never scheduled, no token yet,
// TPOT of a one-token output, latencies of a rejected request).
#include <cstdint>
#include <string>
#include <string_view>

namespace kvscope {

enum class request_outcome : std::uint8_t { finished, rejected };

constexpr std::string_view to_string(request_outcome o) noexcept {
  return o == request_outcome::finished ? "finished" : "rejected";
}

struct request_record {
  std::uint64_t request_id = 0;
  double arrival_s = 0;
  double first_scheduled_s = 0;
  double first_token_s = 0;  // the first token ever emitted, even if preempted afterwards
  double finish_s = 0;       // when it finished, or was rejected
  std::uint32_t prompt_tokens = 0;
  std::uint32_t output_tokens = 0;         // tokens emitted; recomputed ones are not emitted again
  std::uint32_t cached_prompt_tokens = 0;  // prefix-cache hits at the last admission
  std::uint32_t preemptions = 0;
  std::uint64_t recomputed_tokens = 0;  // prompt and output tokens computed again after preemption
  request_outcome outcome = request_outcome::finished;
  std::string reason;  // why it was rejected; empty when finished
  double ttft_s = 0;   // first token - arrival
  double tpot_s = 0;   // (finish - first token) / (output tokens - 1)
  double e2e_s = 0;    // finish - arrival (finished requests only)
  double queue_s = 0;  // first scheduled - arrival
};

}  // namespace kvscope
