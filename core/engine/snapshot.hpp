#pragma once
// An immutable picture of the engine that the runner publishes for readers (the GUI) without
// ever waiting on them. Readers hold a shared_ptr<const engine_snapshot> as long as they like.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/step_metrics.hpp"
#include "memory/frame_map.hpp"
#include "policy/policy_config.hpp"
#include "policy/policy_controller.hpp"

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

struct engine_snapshot {
  std::uint64_t step = 0;
  double sim_time_s = 0;
  bool finished = false;                  // the load is exhausted and every request is done
  std::vector<step_metrics> new_metrics;  // steps since the previous snapshot, oldest first
  step_metrics latest;                    // the most recent step (also valid with no new steps)
  frame_map frames;
  std::vector<sequence_summary> sequences;  // running sequences, admission order
  policy_config policy;
  policy_state policy_now;
  std::uint64_t budget_bytes = 0;
};

}  // namespace kvscope
