#pragma once
// One request of a load (docs/load-formats.md): when it arrives and how many tokens it reads and writes.
#include <cstdint>
#include <string>
#include <vector>

namespace kvscope {

// The most tokens one request may hold (prompt + output): the engine counts a sequence's tokens
// in 32 bits with room to spare. Readers refuse longer rows, naming the field.
inline constexpr std::uint64_t max_request_tokens = (std::uint64_t{1} << 31) - 1;

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
