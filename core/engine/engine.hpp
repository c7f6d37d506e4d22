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

#include "engine/engine_options.hpp"
#include "engine/engine_setup.hpp"
#include "engine/pool_view.hpp"
#include "engine/step_pricing.hpp"
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

// Thrown by engine::step when more than max_waiting_requests wait: the load arrives faster than
// the server finishes it. what() says when, how many waited, and how overloaded the load is.
class overload_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

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
  std::array<std::uint64_t, kv_level_count> peak_bytes_per_level{};
  std::uint64_t peak_scale_bytes = 0;
  prefix_cache_stats prefix;
  std::uint64_t migrated_blocks = 0;
  double step_seconds_sum = 0;  // simulated time spent in steps (the clock also jumps idle gaps)
  step_time_totals step_terms;  // roofline: step_seconds_sum by term
  // The span the load arrived over and the step time spent in it: whether it outran the server
  // (run/levers.hpp server_demand). first_arrival_s is -1 until a request arrived.
  double first_arrival_s = -1;
  double last_arrival_s = 0;
  double step_seconds_by_last_arrival = 0;
  std::uint64_t waiting_at_last_arrival = 0;  // not yet admitted (or held at the client) then
  double exposure_sum = 0;       // attention_error_exposure summed over steps that attended KV
  std::uint64_t exposure_steps = 0;
  // Data mode: the attention error of every sampled sequence, whatever its levels.
  double attention_squared_error_all = 0, attention_squared_reference_all = 0;
  // Quality: error sums over every measurement, by level (relative() of these).
  std::array<double, kv_level_count> quant_squared_error{}, quant_squared_reference{};
  std::array<double, kv_level_count> attention_squared_error{}, attention_squared_reference{};
  std::uint64_t quality_samples = 0;
};

class engine {
 public:
  // Resolves the options (resolve_setup); throws std::invalid_argument with its reason.
  engine(const engine_options& options, std::unique_ptr<request_source> load);
  // Runs what resolve_setup resolved, reading no file again.
  engine(engine_setup setup, std::unique_ptr<request_source> load);
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
  const engine_options& options() const noexcept { return setup_.options; }
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
  // Hands an arrived (or, with a concurrency limit, sent) request to the server, after
  // client_wait_s at the client.
  void send(const request& r, double client_wait_s = 0);
  // Data mode: stores the scheduled sequences' new tokens' K/V and advances them.
  void write_new_tokens();
  void measure_quality();
  // `usage`: the pool now (after this step's migration).
  void record(const step_plan& plan, double step_seconds, const step_work& work,
              const pool_usage& usage);
  precision level_in_force(const pool_usage& usage) const noexcept;
  // The step's work for the roofline: tokens, attention reads and the KV bytes they touch;
  // and, for sharing its time out, what the decoding sequences did.
  struct measured_step {
    step_work work;
    decode_mix decoding;
    std::uint64_t context_tokens = 0;  // every scheduled sequence's context after the step
  };
  // measured_step of the plan; in accounting mode it also advances every scheduled sequence
  // by its new tokens (data mode: write_new_tokens does).
  measured_step measure_and_advance(const step_plan& plan);
  // Adds a scheduled sequence's tokens and attention reads to `all`, and to `decoding` for a
  // decode token. Inline: per sequence, per step; the sums are locals of the caller's walk, so
  // that they stay in registers (a measured_step is returned, so it lives in memory).
  static void add_sequence_work(decode_mix& all, decode_mix& decoding, const sequence_state& s) noexcept {
    ++all.sequences;
    // The token at position p attends to p + 1 tokens: sum over [a, b) of (p + 1); b alone for
    // one token (most of them: decodes), without the multiplies.
    const std::uint64_t b = s.computed_tokens, a = b - s.scheduled_tokens;
    const std::uint64_t reads = s.scheduled_tokens == 1 ? b : (b * (b + 1) - a * (a + 1)) / 2;
    all.context_token_reads += reads;
    all.context_tokens += b;
    if (a >= s.prefill_target) {  // a decode token (the prefill was done before this step)
      ++decoding.sequences;
      decoding.context_token_reads += reads;
      decoding.context_tokens += b;
    }
  }
  // Hands the scheduler's events of this step to the outcome tracker, with the step's time
  // shared out among the requests in it.
  void record_outcomes(double step_start_s, const step_plan& plan, const measured_step& measured, double seconds);
  // Multi-step scheduling: this step's tokens and completions held until the schedule's last
  // step, then streamed together; returns how many requests completed now.
  std::size_t stream_held(const step_events& ev);

  engine_setup setup_;  // with the options it was resolved from
  model_shape shape_;
  step_pricing pricing_;
  std::unique_ptr<request_source> load_;
  std::optional<request> next_arrival_;
  std::deque<request> client_queue_;  // arrived, waiting at the client for a free slot
  std::uint32_t client_limit_ = 0;    // requests in flight at most; 0 = no limit
  std::uint32_t in_flight_ = 0;       // sent and neither finished nor rejected
  std::unique_ptr<paged_cache> cache_;
  std::unique_ptr<block_manager> kv_;
  std::unique_ptr<scheduler> sched_;
  policy_controller policy_;
  // Each level's attention error factor (memory/error_factors.hpp), q4's as the q4 level stores.
  std::array<double, kv_level_count> error_factors_;
  synthetic_kv data_;
  request_outcomes outcomes_;
  // What multi-step scheduling holds back: tokens per request handle (and the handles holding
  // any, in the order they first did), and the requests finished but not yet streamed.
  std::vector<std::uint32_t> held_tokens_;
  std::vector<request_handle> held_order_;
  std::vector<request_handle> held_finished_;
  double clock_s_ = 0;
  std::uint64_t steps_ = 0;
  step_metrics last_;
  engine_totals totals_;
  std::array<double, kv_level_count> last_quant_error_{NAN, NAN, NAN, NAN, NAN};
  std::array<double, kv_level_count> last_attention_error_{NAN, NAN, NAN, NAN, NAN};
};

}  // namespace kvscope
