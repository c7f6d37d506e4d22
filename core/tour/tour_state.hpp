#pragma once
// The state of the engine at one step of a tour, as numbers: every block (id, frame, slot,
// level, refcount, owner, cached), the running sequences' block tables, free frames, bytes per
// level, pressure, EWMA, level and band, and the counters a lecture talks about. Two states are
// equal exactly when the pool, the tables and the numbers are.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.hpp"
#include "policy/policy_config.hpp"

namespace kvscope {

struct tour_block {
  block_id id = no_block;
  std::uint32_t frame = 0;
  std::uint8_t slot = 0;
  precision level = precision::fp16;
  std::uint16_t refcount = 0;  // 0: cached (kept for prefix hits)
  std::uint16_t fill = 0;      // tokens written
  bool cached = false;
  sequence_id owner = no_sequence;  // the paged cache's sequence that allocated (or revived) it
  std::int32_t logical_index = -1;
  friend bool operator==(const tour_block&, const tour_block&) = default;
};

struct tour_sequence {
  sequence_id id = no_sequence;  // the paged cache's id (block owners refer to it)
  std::uint64_t request_id = 0;
  std::string request_name;
  bool prefill = false;
  std::uint32_t prompt_tokens = 0;
  std::uint32_t output_tokens = 0;
  std::uint32_t tokens = 0;     // in the cache now
  std::vector<block_id> table;  // logical order
  friend bool operator==(const tour_sequence&, const tour_sequence&) = default;
};

struct tour_state {
  std::uint64_t engine_step = 0;  // engine steps run since the start
  double sim_time_s = 0;
  std::uint32_t block_size = 0;
  std::uint64_t frame_bytes = 0;
  std::uint32_t frames = 0;
  std::uint32_t free_frames = 0;
  std::uint32_t scale_frames = 0;  // frames' worth of budget the quantization scales reserve
  std::vector<tour_block> blocks;  // live and cached blocks, by id
  std::vector<tour_sequence> sequences;  // running, admission order
  std::array<std::uint64_t, kv_level_count> bytes_per_level{};  // frames split for each level (payload + slack)
  std::uint64_t scale_bytes = 0;
  std::uint64_t free_bytes = 0;
  std::uint64_t budget_bytes = 0;
  // One block stored at each level: its payload and its scales (the side table).
  std::array<std::uint64_t, kv_level_count> block_payload{}, block_scales{};
  double pressure = 0;  // bytes referenced by sequences / budget
  double ewma = 0;
  precision level = precision::fp16;
  policy_config policy;
  std::uint32_t running = 0, waiting = 0;
  std::uint64_t finished = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t prefix_hit_tokens = 0;
  std::uint64_t prefix_hit_blocks = 0;  // prefix_hit_tokens in whole blocks: what narrations count
  std::uint64_t evictions = 0;
  std::uint64_t migrated_blocks = 0;
  // Relative RMSE of the K/V values stored at each level, and relative L2 error of the attention
  // output of sequences holding it, as last measured (data payload; none where not sampled).
  std::array<std::optional<double>, kv_level_count> quant_error{}, attention_error{};
  friend bool operator==(const tour_state&, const tour_state&) = default;

  const tour_block* block(block_id id) const;
  const tour_sequence* sequence(sequence_id id) const;
  // Blocks (live, not cached) stored at `level`.
  std::uint32_t blocks_at(precision level) const;
  std::uint32_t cached_blocks() const;
  std::uint32_t shared_blocks() const;
};

// `names[i]` names request id i (explicit requests); a load's requests are named by id.
tour_state capture_tour_state(const engine& e, std::span<const std::string> names = {});

// Where the EWMA stands against the thresholds, in words: "below q8 (0.45)", "in the q8
// hysteresis band: q8 is held until EWMA < 0.40", ...
std::string policy_band(const tour_state& s);

// A named number of a state: what conditions test (`value`) and narrations show (`format`).
struct tour_quantity {
  std::string_view name;
  std::string_view help;
  double (*value)(const tour_state&) = nullptr;  // null: shown only, never tested
};
std::span<const tour_quantity> tour_quantities();
const tour_quantity* find_tour_quantity(std::string_view name);
// "free frames 12 of 24", "level q8", "refcounts #0:2 #1:2 ..." (of `blocks`, else of all);
// "new_X" gives X's change since `before`: "evictions +23 since the previous step (31 in all)".
std::string format_tour_quantity(std::string_view name, const tour_state& s,
                                 std::span<const block_id> blocks = {}, const tour_state* before = nullptr);

// The counters every step states (the slides' footer, the text's counters line), totals so far.
// A count that moved since `before` (the previous step; none: no change shown) also says by how
// much, since a narration speaks of what this step did: "prefix hits 11 blocks (+8 this step)".
std::vector<std::string> tour_counters(const tour_state& s, const tour_state* before = nullptr);

}  // namespace kvscope
