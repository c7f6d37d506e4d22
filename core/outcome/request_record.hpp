#pragma once
// What became of one request, as its row of the per-request CSV: times in simulated seconds since
// the load's start, NaN where a time or latency is undefined (never scheduled, no token yet,
// TPOT of a one-token output, latencies of a rejected request). The latencies are computed from
// the times rather than stored: a record cannot hold a latency its times contradict. Where the
// time went is in `parts` (outcome/latency_parts.hpp).
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "outcome/latency_parts.hpp"

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
  latency_parts parts;  // where its TTFT and decode time went (zero when rejected)
  // Waiting at the client for a free slot (--max-concurrency) before it was sent: as in
  // `vllm bench serve`, outside its latencies, which count from the send.
  double client_wait_s = 0;
  // What the step model gives it alone on an idle server (NaN when not estimated; TPOT NaN for a
  // one-token output): a request that misses its SLO even so is infeasible, not delayed.
  double alone_ttft_s = undefined();
  double alone_tpot_s = undefined();

  // first token - arrival, of a finished request
  double ttft_s() const noexcept { return finished() ? first_token_s - arrival_s : undefined(); }
  // (finish - first token) / (output tokens - 1), of a finished request of two tokens or more
  double tpot_s() const noexcept {
    return finished() && output_tokens > 1 ? (finish_s - first_token_s) / static_cast<double>(output_tokens - 1)
                                           : undefined();
  }
  // finish - arrival, of a finished request
  double e2e_s() const noexcept { return finished() ? finish_s - arrival_s : undefined(); }
  // first scheduled - arrival (NaN when never scheduled)
  double queue_s() const noexcept { return first_scheduled_s - arrival_s; }
  bool finished() const noexcept { return outcome == request_outcome::finished; }

 private:
  static constexpr double undefined() noexcept { return std::numeric_limits<double>::quiet_NaN(); }
};

}  // namespace kvscope
