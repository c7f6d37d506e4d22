#pragma once
// What became of one request, as its row of the per-request CSV: times in simulated seconds since
// the load's start, NaN where a time or latency is undefined (never scheduled, no token yet,
// TPOT of a one-token output, latencies of a rejected request). The latencies are computed from
// the times rather than stored: the GUI keeps a record for every request of a run (104 bytes,
// not 136), and a record cannot hold a latency its times contradict.
#include <cstdint>
#include <limits>
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
