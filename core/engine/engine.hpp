#pragma once
// The engine: one batched forward step at a time (docs/ARCHITECTURE.md, "The engine"). Each step admits arrived
// requests, schedules (continuous batching, prefix cache, preemption), writes the new tokens'
// K/V (data mode) or just counts them (accounting mode), advances the simulated clock by the
// step-time model, lets the policy observe the pressure (ewma family), migrates cold blocks to the
// level the policy family gives each and records metrics. Deterministic: same options, load and
// command sequence, same metrics, bit for bit, whatever the thread count (parallel work is per
// block or sequence, reduced in order).
#include <array>
#include <deque>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/engine_setup.hpp"
#include "engine/pool_view.hpp"
#include "engine/step_metrics.hpp"
#include "load/request_source.hpp"
#include "memory/paged_cache.hpp"
#include "memory/synthetic_kv.hpp"
#include "outcome/request_outcomes.hpp"
#include "policy/policy_controller.hpp"
#include "sched/block_manager.hpp"
#include "sched/scheduler.hpp"
#include "util/expected.hpp"

namespace kvscope {

// Simulated duration of a step: a fixed cost (reading the weights) plus a cost per token
// computed. Defaults are in the range of an 8B model on one modern GPU.
// Written as typed value × unit so a default is bit-identical to the same value typed on the
// command line in ms or us (40 * 1e-6 is not 40e-6).
struct step_time_model {
  double base_s = 10 * 1e-3;
  double per_prefill_token_s = 40 * 1e-6;
  double per_decode_token_s = 80 * 1e-6;

  double seconds(const step_plan& plan) const noexcept {
    return base_s + per_prefill_token_s * plan.prefill_tokens +
           per_decode_token_s * plan.decode_tokens;
  }
};

struct engine_options {
  std::string model = "llama3-8b";  // a built-in model (model/builtin_models.hpp) or a config.json
  std::uint64_t budget_bytes = 16ull << 30;  // 0 = auto: as vLLM sizes it on `gpu`
  std::uint32_t block_size = 16;
  std::uint32_t tail_tokens = 256;
  std::uint32_t migration_batch = 64;  // cold blocks re-quantized per step at most
  std::uint32_t max_tokens = 0;        // sliding window per sequence; 0 = off
  payload_mode payload = payload_mode::accounting;
  bool prefix_caching = true;
  scheduler_config scheduler;
  step_time_model timing;
  policy_config policy;
  std::uint64_t seed = 0;             // synthetic K/V data
  std::uint32_t quality_every = 50;   // data mode: measure quality every N steps; 0 = never
  std::uint32_t quality_blocks = 64;  // blocks sampled per measurement
  timing_kind timing_model = timing_kind::automatic;  // roofline once a GPU is given
  std::string gpu;                     // a built-in GPU (model/gpu_spec.hpp) or a JSON file; "" none
  std::uint32_t tensor_parallel = 1;   // GPUs the model is split over
  double gpu_memory_utilization = 0.9;  // share of GPU memory for weights, activations and KV
  std::uint32_t max_model_len = 0;     // longest prompt + output; 0 = the model's context length
  std::string slo;                     // "ttft=0.5,tpot=0.05[,e2e=...]" (seconds), for goodput
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
  double compute_efficiency = 0;
  double memory_efficiency = 0;
  double step_overhead_s = 0;
  double sequence_overhead_s = 0;
};

// Thrown by engine::step when more than max_waiting_requests wait: the load arrives faster than
// the server finishes it. what() says when, how many waited, and how overloaded the load is.
class overload_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Why the options cannot make an engine (unknown model, invalid policy, pool too small, ...).
std::optional<std::string> validate(const engine_options& options);

// Totals over the run so far, for the summary.
struct engine_totals {
  std::uint64_t requests_total = 0;  // arrived (enqueued)
  std::uint64_t requests_finished = 0;
  std::uint64_t requests_rejected = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t level_transitions = 0;
  std::uint64_t decode_token_steps = 0;
  std::uint64_t prefill_tokens = 0;
  double peak_usage = 0;
  double usage_sum = 0;  // mean_usage = usage_sum / steps
  std::array<std::uint64_t, 4> peak_bytes_per_level{};
  std::uint64_t peak_scale_bytes = 0;
  prefix_cache_stats prefix;
  std::uint64_t migrated_blocks = 0;
  double step_seconds_sum = 0;  // simulated time spent in steps (the clock also jumps idle gaps)
  double exposure_sum = 0;       // attention_error_exposure summed over steps that attended KV
  std::uint64_t exposure_steps = 0;
  // Data mode: the attention error of every sampled sequence, whatever its levels.
  double attention_squared_error_all = 0, attention_squared_reference_all = 0;
  // Quality: error sums over every measurement, by level (relative() of these).
  std::array<double, 4> quant_squared_error{}, quant_squared_reference{};
  std::array<double, 4> attention_squared_error{}, attention_squared_reference{};
  std::uint64_t quality_samples = 0;
};

class engine {
 public:
  // Throws std::invalid_argument with validate()'s reason.
  engine(const engine_options& options, std::unique_ptr<request_source> load);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  // Runs one step; false (and nothing happens) once the load is exhausted and every request
  // has finished or been rejected. Throws what the load throws (a bad row while streaming).
  bool step();
  bool finished() const noexcept;
  // Share of the load read so far, in [0, 1] (1 once it is exhausted).
  double load_progress() const noexcept;

  std::uint64_t steps_done() const noexcept { return steps_; }
  double sim_time_s() const noexcept { return clock_s_; }
  const step_metrics& last_metrics() const noexcept { return last_; }
  const engine_totals& totals() const noexcept { return totals_; }
  const std::vector<rejected_request>& rejected() const noexcept { return sched_->rejected(); }
  const std::array<std::uint64_t, rejection_cause_count>& rejected_by_cause() const noexcept {
    return sched_->rejected_by_cause();
  }
  // Per-request outcomes so far (latencies, goodput): outcomes().summary(...).
  const request_outcomes& outcomes() const noexcept { return outcomes_; }
  // What the options resolved to: model config, GPU, timing, the budget chosen.
  const engine_setup& setup() const noexcept { return setup_; }
  // Receives each request's record as it finishes or is rejected (before the first step).
  void on_request_done(request_outcomes::row_sink sink) { outcomes_.set_sink(std::move(sink)); }
  const engine_options& options() const noexcept { return options_; }
  const policy_controller& policy() const noexcept { return policy_; }
  // The step metric `level`: the controller's level for the ewma family; for the families
  // without a controller, the most compact level a block referenced by a sequence is held at.
  precision level() const noexcept;
  const paged_cache& cache() const noexcept { return *cache_; }
  // The policy's input: bytes referenced by sequences / budget, in [0, 1]. Cached blocks that
  // no sequence references are evictable and count as free, as in vLLM's kv_cache_usage_perc.
  double pressure() const noexcept;

  // Adopts a new policy config from the next step on; the validation reason otherwise.
  expected<void, std::string> reconfigure(const policy_config& config);

  // Every frame and the running sequences' block tables now: what a pool_view holds.
  pool_view view_pool() const;

 private:
  void pull_arrivals();
  // Throws overload_error once more than max_waiting_requests wait.
  void check_waiting() const;
  // Hands an arrived (or, with a concurrency limit, sent) request to the server.
  void send(const request& r);
  void write_new_tokens();
  void measure_quality();
  // `usage`: the pool now (after this step's migration).
  void record(const step_plan& plan, double step_seconds, const step_work& work,
              const pool_usage& usage);
  precision level_in_force(const pool_usage& usage) const noexcept;
  // The step's work for the roofline: tokens, attention reads and the KV bytes they touch.
  step_work measure_work(const step_plan& plan) const;
  // Hands the scheduler's events of this step to the outcome tracker.
  void record_outcomes(double step_start_s);

  engine_options options_;
  engine_setup setup_;
  model_shape shape_;
  std::unique_ptr<request_source> load_;
  std::optional<request> next_arrival_;
  std::deque<request> client_queue_;  // arrived, waiting at the client for a free slot
  std::uint32_t client_limit_ = 0;    // requests in flight at most; 0 = no limit
  std::uint32_t in_flight_ = 0;       // sent and neither finished nor rejected
  std::unique_ptr<paged_cache> cache_;
  std::unique_ptr<block_manager> kv_;
  std::unique_ptr<scheduler> sched_;
  policy_controller policy_;
  synthetic_kv data_;
  request_outcomes outcomes_;
  double clock_s_ = 0;
  std::uint64_t steps_ = 0;
  step_metrics last_;
  engine_totals totals_;
  std::array<double, 4> last_quant_error_{NAN, NAN, NAN, NAN};
  std::array<double, 4> last_attention_error_{NAN, NAN, NAN, NAN};
};

}  // namespace kvscope
