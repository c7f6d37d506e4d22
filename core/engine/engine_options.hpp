#pragma once
// What an engine is asked to run: the model, the KV budget, the scheduler, the policy, the step
// time and the GPU (engine_options), as the option table (run/option_table.hpp) names them.
// Values only: resolve_setup (engine/engine_setup.hpp) checks them and reads the files they
// name, once, and the engine takes what it resolved. Headers that only carry options include
// this one rather than engine.hpp.
#include <cstdint>
#include <string>

#include "memory/payload_mode.hpp"
#include "policy/policy_config.hpp"
#include "quant/q4o.hpp"
#include "sched/scheduler.hpp"

namespace kvscope {

// How a step's simulated duration is computed.
enum class timing_kind : std::uint8_t {
  automatic,  // roofline when a GPU is given, else linear
  linear,     // base + per-token costs (step_time_model)
  roofline,   // matmuls + attention + overheads on the GPU (model/roofline.hpp)
};

// Which generation of vLLM's engine the server runs: its host work per step differs. V0 (vLLM
// 0.5-0.7) scheduled, prepared inputs and processed outputs in Python between forward passes; V1
// (the default engine from 0.8) overlaps most of it with the GPU.
enum class vllm_engine_kind : std::uint8_t { v1, v0 };

// Simulated duration of a step: a fixed cost (reading the weights) plus a cost per token
// computed. Defaults are in the range of an 8B model on one modern GPU.
// Written as typed value × unit so a default is bit-identical to the same value typed on the
// command line in ms or us (40 * 1e-6 is not 40e-6).
struct step_time_model {
  double base_s = 10 * 1e-3;
  double per_prefill_token_s = 40 * 1e-6;
  double per_decode_token_s = 80 * 1e-6;

  // The step's duration: base_s plus each token computed at its cost.
  double seconds(const step_plan& plan) const noexcept {
    return base_s + per_prefill_token_s * plan.prefill_tokens +
           per_decode_token_s * plan.decode_tokens;
  }
  friend bool operator==(const step_time_model&, const step_time_model&) = default;
};

struct engine_options {
  std::string model = "llama3-8b";  // a built-in model (model/builtin_models.hpp) or a config.json
  std::uint64_t budget_bytes = 16ull << 30;  // 0 = auto: as vLLM sizes it on `gpu`
  std::uint32_t block_size = 16;
  std::uint32_t tail_tokens = 256;
  std::uint32_t migration_batch = 64;  // cold blocks re-quantized per step at most
  std::uint32_t max_tokens = 0;        // sliding window per sequence; 0 = off
  payload_mode payload = payload_mode::accounting;
  // How the q4 level stores its blocks (quant/q4o.hpp): q4, or q4o with `q4o_channels` key
  // channels per block, layer and kv head apart at int8. A storage detail of q4, not a level:
  // the policy and its files still know four levels.
  q4_format q4_storage = q4_format::q4;
  std::uint32_t q4o_channels = q4o_default_channels;
  bool prefix_caching = true;
  scheduler_config scheduler;
  step_time_model timing;
  policy_config policy;
  std::uint64_t seed = 0;             // synthetic K/V data, and resampled arrivals' gaps
  std::uint32_t quality_every = 50;   // data mode: measure quality every N steps; 0 = never
  std::uint32_t quality_blocks = 64;  // blocks sampled per measurement
  timing_kind timing_model = timing_kind::automatic;  // roofline once a GPU is given
  std::string gpu;                     // a built-in GPU (model/gpu_spec.hpp) or a JSON file; "" none
  std::uint32_t tensor_parallel = 1;   // GPUs the model is split over
  double gpu_memory_utilization = 0.9;  // share of GPU memory for weights, activations and KV
  std::uint32_t max_model_len = 0;     // longest prompt + output; 0 = the model's context length
  std::string slo;                     // "ttft=0.5,tpot=0.05[,e2e=...]" (seconds), for goodput
  // The load's arrival times: "keep" (its own), or resampled at its mean rate as "poisson" or
  // "gamma:CV" (load/resampled_arrivals.hpp). Applied where the run opens its load; the engine
  // never reads it, but sweeps and tune vary it as they vary any option of the table.
  std::string arrivals = "keep";
  // At most this many requests in flight; the rest wait at the client (vllm bench serve
  // --max-concurrency). 0 = no limit, or the load's own (a closed-loop generator's clients).
  std::uint32_t max_concurrency = 0;
  // Requests waiting at most, at the client and for admission: an overloaded server's queue
  // grows without end, so past this the run stops with an overload_error instead of exhausting
  // memory. A waiting request costs about 210 bytes (measured on a generated load): the default
  // stays near 220 MB.
  std::uint32_t max_waiting_requests = 1'000'000;
  // Overrides of the GPU's efficiency factors and step overhead (0 = the GPU's own): what
  // `kvscope-cli calibrate` fits to measurements, applied with --calibration FILE.
  // The host overheads a GPU without overheads of its own gets: V1's, or V0's.
  vllm_engine_kind vllm_engine = vllm_engine_kind::v1;
  double compute_efficiency = 0;
  double sustained_share = 0;
  double memory_efficiency = 0;
  double kv_memory_efficiency = 0;
  double step_overhead_s = 0;
  double layer_overhead_s = 0;
  double sequence_overhead_s = 0;

  // Member by member: a resolved setup is reused only for the options it was resolved from.
  friend bool operator==(const engine_options&, const engine_options&) = default;
};

}  // namespace kvscope
