#pragma once
// What the engine records after every step (docs/ARCHITECTURE.md, "The engine"), named as vLLM names them where it
// has a name. Plain values: the GUI plots them, the CLI writes them as CSV.
#include <array>
#include <cmath>
#include <cstdint>

#include "quant/level.hpp"

namespace kvscope {

struct step_metrics {
  std::uint64_t step = 0;
  double sim_time_s = 0;            // simulated clock after the step
  double kv_cache_usage_perc = 0;   // raw pressure: bytes in use / budget, in [0, 1]
  double pressure_ewma = 0;         // the policy's smoothed pressure after observing it
  precision level = precision::fp16;  // the policy's level after the step

  // Bytes in use per precision level (payload only), quantization scales, and free bytes.
  // Sum of all = budget.
  std::array<std::uint64_t, kv_level_count> bytes_per_level{};  // indexed by ordinal(precision)
  std::uint64_t scale_bytes = 0;
  std::uint64_t free_bytes = 0;
  // Of the bytes above, those only the prefix cache keeps (refcount 0, scales and the empty slots
  // of their frames included): evicted on demand, so free to kv_cache_usage_perc.
  std::uint64_t cached_bytes = 0;

  std::uint32_t num_requests_running = 0;
  std::uint32_t num_requests_waiting = 0;
  std::uint64_t num_preemptions_total = 0;
  std::uint64_t level_transitions_total = 0;
  std::uint64_t prefix_cache_hits = 0;     // cumulative, in blocks
  std::uint64_t prefix_cache_queries = 0;  // cumulative, in blocks
  std::uint32_t decode_tokens = 0;         // tokens decoded in this step
  std::uint32_t prefill_tokens = 0;        // prompt tokens processed in this step
  std::uint64_t requests_finished_total = 0;

  // Measured quality per level, NaN where not sampled (accounting mode or level unused).
  std::array<double, kv_level_count> quant_rel_rmse{NAN, NAN, NAN, NAN, NAN};
  std::array<double, kv_level_count> attention_rel_l2{NAN, NAN, NAN, NAN, NAN};

  double step_seconds = 0;  // simulated duration of this step (linear or roofline model)
  // KV bytes the step's attention read, by the level each block is stored at, scales included.
  std::array<std::uint64_t, kv_level_count> kv_bytes_read{};
  // Expected relative attention error of this step: sum over levels of the share of attended
  // KV token-reads served at that level times the level's calibrated error (memory/error_factors).
  double attention_error_exposure = 0;
};

}  // namespace kvscope
