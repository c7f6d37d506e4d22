#pragma once
// Continuous batching as vLLM schedules it (docs/ARCHITECTURE.md, "The engine"): running sequences first (one decode
// token each, or their next prefill chunk), then waiting requests FCFS while their prompt plus a
// watermark fits, within max_num_seqs and max_num_batched_tokens. When a running sequence cannot
// grow, the most recently admitted one is preempted (recompute: its blocks are freed and it goes
// back to the front of the queue). A prompt that can never fit is rejected with a reason.
#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "load/request.hpp"
#include "outcome/latency_parts.hpp"
#include "sched/kv_cache_manager.hpp"

namespace kvscope {

struct scheduler_config {
  std::uint32_t max_num_seqs = 256;
  std::uint32_t max_num_batched_tokens = 8192;
  double watermark = 0.01;  // fraction of frames kept free when admitting
  // Multi-step scheduling (vLLM 0.6's --num-scheduler-steps): a batch of decodes is scheduled
  // once for this many steps, with no admission in between, and its tokens reach the client
  // together at the end (stream_boundary()). A step with prompt tokens runs alone. 1 = off.
  std::uint32_t num_scheduler_steps = 1;
  // Chunked prefill (vLLM V1 always; V0 only with --enable-chunked-prefill or a context over 32K):
  // decodes first, then prompt chunks in the same step. Off, as vLLM V0's default scheduler:
  // whole prompts first in a step of their own, decodes only in a step that admitted none.
  bool chunked_prefill = true;
  friend bool operator==(const scheduler_config&, const scheduler_config&) = default;
};

// Why a request was refused, as a kind, so that thousands of refusals can be told as a few
// counts; rejected_request::reason has the request's own numbers.
enum class rejection_cause : std::uint8_t {
  longer_than_context,     // prompt + output exceed the model's max_model_len (as vLLM refuses)
  larger_than_pool,        // its peak KV exceeds the whole pool
  prompt_over_watermark,   // its prompt plus the free-frame watermark exceed the whole pool
  stalled_alone,           // it could not grow even with nothing else running
  prompt_fits_no_pool,     // its prompt plus the watermark did not fit with nothing else running
};
inline constexpr int rejection_cause_count = 5;

// A few words for a cause, to follow a count of requests: "longer than the model's context".
std::string_view describe(rejection_cause c) noexcept;

struct rejected_request {
  std::uint64_t request_id = 0;
  std::string reason;
  std::uint32_t tag = 0;  // the caller's tag of the request (enqueue)
  rejection_cause cause = rejection_cause::larger_than_pool;
};

// One sequence the scheduler tracks, from admission to completion.
struct sequence_state {
  sequence_id id = no_sequence;
  request req;
  std::uint32_t computed_tokens = 0;   // tokens whose KV is in the cache
  std::uint32_t generated_tokens = 0;  // output tokens produced so far
  std::uint32_t scheduled_tokens = 0;  // tokens computed in the current step
  std::uint32_t prefix_hit_tokens = 0;  // from the prefix cache at the last admission
  // Tokens to compute before decoding: the prompt, plus the outputs so far after a preemption
  // (recompute), so that the KV of prompt + outputs is rebuilt before the next token.
  std::uint32_t prefill_target = 0;
  std::uint32_t tag = 0;  // the caller's handle of the request (enqueue), reported in step_events
  // The memory's kv_cache_manager::quiet_tokens after its last allocate_slots: growing up to it
  // needs no call (0 while not running).
  std::uint32_t quiet_tokens = 0;
  // The memory's kv_cache_manager::slot of it while it runs (no_sequence otherwise).
  sequence_id memory_slot = no_sequence;
  // Running alone, it could not grow by even one token, so it preempted itself: the furthest
  // it had got then, and how many such preemptions since it last got further. At one it comes
  // back computed afresh (its cached blocks may be stored less compactly than new ones would
  // be); at two it is rejected, as coming back would repeat the same steps for ever.
  std::uint32_t alone_reached = 0;
  std::uint32_t alone_stalls = 0;

  bool in_prefill() const noexcept { return computed_tokens < prefill_target; }
};

// What one step did; the engine turns it into the step time and metrics.
struct step_plan {
  std::uint32_t prefill_tokens = 0;
  std::uint32_t decode_tokens = 0;
  std::uint32_t preemptions = 0;
  std::uint32_t admitted = 0;
  // A later step of a multi-step schedule: the host scheduled it, and prepared its inputs, with
  // the schedule's first step (roofline.hpp charges it no host time).
  bool scheduled_earlier = false;
  std::vector<sequence_id> finished;  // freed at the end of this step
};

// What happened to requests in the last schedule(), by the caller's tags, for per-request
// outcomes. Valid until the next schedule().
struct step_events {
  struct admission {
    std::uint32_t tag;
    std::uint32_t cached_prompt_tokens;  // prefix cache hits at this admission
  };
  struct preemption {
    std::uint32_t tag;
    std::uint32_t recomputed_tokens;  // tokens whose KV was dropped and must be computed again
  };
  std::vector<admission> admitted;     // scheduled for the first time, or again after preemption
  std::vector<std::uint32_t> emitted;  // produced an output token (decode, or a finished prefill)
  std::vector<preemption> preempted;
  struct prefill_chunk {
    std::uint32_t tag;
    std::uint32_t from, to;  // the tokens [from, to) of its prompt (or of its recompute) this step
  };
  std::vector<std::uint32_t> finished;  // the plan's finished sequences
  std::vector<prefill_chunk> prefill_chunks;
  std::vector<std::uint32_t> unscheduled;  // running, but given no token: the budget ran out
  // Why the requests still waiting were not admitted this step.
  wait_cause waiting = wait_cause::none;
  std::size_t rejected_before = 0;      // rejected()[rejected_before..] are this step's
};

class scheduler {
 public:
  scheduler(const scheduler_config& config, kv_cache_manager& kv);

  // Queues an arrived request (FCFS by call order); `tag` names it in step_events and rejections.
  void enqueue(const request& r, std::uint32_t tag = 0);
  // Refuses a request outright (it is never queued), recording its cause and `reason`.
  void reject(const request& r, rejection_cause cause, std::string reason, std::uint32_t tag = 0);

  // Plans one step: grows or preempts running sequences, admits waiting ones, and advances every
  // scheduled sequence's token counts (computed_tokens - scheduled_tokens is where its new
  // tokens start). Finished sequences are listed in the plan but still hold their blocks, so the
  // caller can write their last tokens first.
  step_plan schedule();
  // Frees the plan's finished sequences. Call once after each schedule().
  void complete(const step_plan& plan);
  // schedule() then complete(): a step when nothing happens in between.
  step_plan step();

  bool idle() const noexcept { return running_.empty() && waiting_.empty(); }
  std::size_t num_running() const noexcept { return running_.size(); }
  std::size_t num_waiting() const noexcept { return waiting_.size(); }
  const std::vector<sequence_state>& running() const noexcept { return running_; }
  std::uint64_t preemptions_total() const noexcept { return preemptions_total_; }
  std::uint64_t finished_total() const noexcept { return finished_total_; }
  const std::vector<rejected_request>& rejected() const noexcept { return rejected_; }
  // How many of rejected() had each cause, indexed by the cause's value.
  const std::array<std::uint64_t, rejection_cause_count>& rejected_by_cause() const noexcept {
    return rejected_by_cause_;
  }
  const step_events& events() const noexcept { return events_; }
  // Whether the last planned step ends a schedule (always, without multi-step): the output of
  // the steps since the previous end is processed and streamed then.
  bool stream_boundary() const noexcept { return decode_run_ == 0; }
  std::uint64_t prefix_hit_tokens_total() const noexcept { return prefix_hit_tokens_; }

 private:
  bool grow(std::size_t index, std::uint32_t& tokens);
  // Schedules and accounts running_[i..] while each is a decode token within its memory's quiet
  // run (grow would do nothing): most tokens of most steps. Returns the first index it did not.
  std::size_t decode_quiet(std::size_t i, std::uint32_t& budget, step_plan& plan);
  void preempt_last();
  void admit(std::uint32_t& budget, step_plan& plan);
  struct refusal {
    rejection_cause cause;
    std::string reason;
  };
  // Why the waiting request `s` can never be admitted; nothing when it may be.
  std::optional<refusal> never_fits(const sequence_state& s, std::uint32_t reserve) const;
  // Refuses the head of the waiting queue.
  void reject_head(refusal why);
  // Advances a scheduled sequence's token counts and records its events in the plan. Inline:
  // the decode half runs for every token of every sequence.
  void account(sequence_state& s, step_plan& plan) {
    if (s.scheduled_tokens == 0) return;
    if (s.in_prefill()) {
      account_prefill(s, plan);
      return;
    }
    s.computed_tokens += 1;
    s.generated_tokens += 1;
    plan.decode_tokens += 1;
    events_.emitted.push_back(s.tag);
    finish_if_done(s, plan);
  }
  void account_prefill(sequence_state& s, step_plan& plan);
  void finish_if_done(const sequence_state& s, step_plan& plan) {
    if (!s.in_prefill() && s.generated_tokens >= s.req.output_tokens) {
      plan.finished.push_back(s.id);
      events_.finished.push_back(s.tag);
    }
  }

  scheduler_config config_;
  kv_cache_manager& kv_;
  std::deque<sequence_state> waiting_;
  // Admission order: back = most recently admitted. A vector, not a deque: every step walks it
  // twice, and a deque of these large states breaks the walk every few elements.
  std::vector<sequence_state> running_;
  std::vector<rejected_request> rejected_;
  std::array<std::uint64_t, rejection_cause_count> rejected_by_cause_{};
  sequence_id next_id_ = 0;
  std::uint64_t preemptions_total_ = 0;
  std::uint64_t finished_total_ = 0;
  std::uint64_t prefix_hit_tokens_ = 0;
  std::uint32_t decode_run_ = 0;  // decode-only steps of the current multi-step schedule so far
  step_events events_;  // reused from step to step: no allocation once warm
};

}  // namespace kvscope
