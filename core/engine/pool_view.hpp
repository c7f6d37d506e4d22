#pragma once
// The pool as the block map draws it: every frame and the running sequences' block tables,
// taken together at one step. Plain values, shared read-only between snapshots.
#include <cstdint>
#include <vector>

#include "memory/frame_map.hpp"
#include "quant/level.hpp"

namespace kvscope {

// Where one logical block of a sequence lives: frame index and slot inside the frame.
struct block_location {
  std::uint32_t frame = 0;
  std::uint8_t slot = 0;
  precision tier = precision::fp16;
  bool shared = false;  // refcount > 1 (prefix cache hit)
};

enum class sequence_phase : std::uint8_t { prefill, decode };

struct sequence_summary {
  sequence_id id = no_sequence;
  std::uint64_t request_id = 0;
  sequence_phase phase = sequence_phase::prefill;
  std::uint32_t prompt_tokens = 0;
  std::uint32_t output_tokens = 0;      // target output length
  std::uint32_t tokens = 0;             // tokens in the cache now (prompt processed + decoded)
  std::vector<block_location> block_table;  // logical index → physical location
};

// The pool as the block map draws it: every frame, and the running sequences with their block
// tables, taken together at one step. Snapshots share it: on a big pool the runner rebuilds it
// less often than it publishes (runner_options::pool_view_share), so `step` may be older than
// the snapshot's.
struct pool_view {
  std::uint64_t step = 0;
  frame_map frames;
  std::vector<sequence_summary> sequences;  // running sequences, admission order
};

}  // namespace kvscope
