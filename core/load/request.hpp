#pragma once
// One request of a load (docs/load-formats.md): when it arrives and how many tokens it reads and writes.
#include <cstdint>
#include <string>
#include <vector>

namespace kvscope {

// The most tokens one request may hold (prompt + output): the engine counts a sequence's tokens
// in 32 bits with room to spare. Readers refuse longer rows, naming the field.
inline constexpr std::uint64_t max_request_tokens = (std::uint64_t{1} << 31) - 1;

// The latest a request may arrive, in seconds after the load's first one (31.7 years). Simulated
// time is a double, whose spacing at t is t·2^-52: 1.2e-7 s at 1e9 s, so steps of microseconds
// still move the clock; at 1e18 s the spacing is 222 s and every step would vanish next to the
// arrival time, giving latencies of 0. Readers refuse later arrivals, naming the field.
inline constexpr double max_arrival_s = 1e9;
// The rule, for the messages that refuse a later arrival.
inline constexpr const char* max_arrival_rule = "arrivals must be within 1e9 s (31.7 years) of it";

struct request {
  // Loads number their requests 0, 1, 2, ... in arrival order; a native file keeps its own ids.
  std::uint64_t id = 0;
  // Seconds since the load's first request: the first is at 0 and times never decrease.
  double arrival_s = 0;
  std::uint32_t prompt_tokens = 0;
  std::uint32_t output_tokens = 0;
  // prefix_hashes[i] names the content of prompt blocks 0..i (equal ids mean equal prefixes, as
  // Mooncake's hash_ids and vLLM's chained block hashes do). Block i covers prompt tokens
  // [i·B, (i+1)·B) with B = prefix_block_size; a block reaching past the prompt's end is partial.
  // Blocks past the last hash are unique to the request. Empty when the load says nothing.
  std::vector<std::uint64_t> prefix_hashes;
  std::uint32_t prefix_block_size = 0;  // 0 exactly when prefix_hashes is empty
  std::string label;                    // e.g. "ChatGPT/Conversation log"; empty when none

  friend bool operator==(const request&, const request&) = default;
};

}  // namespace kvscope
