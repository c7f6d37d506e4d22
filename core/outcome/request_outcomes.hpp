#pragma once
// Per-request service outcomes as vLLM's benchmark (`vllm bench serve`) defines them, built from
// the events a simulated engine reports, all at simulated time t in seconds:
//   queue = first scheduled - arrival      TTFT = first token - arrival
//   TPOT  = (finish - first token) / (output tokens - 1), undefined for one-token outputs
//   ITL   = each gap between consecutive emissions of a request   e2e = finish - arrival
// A request preempted for recompute keeps its arrival and first-token times; the gap across the
// preemption is one (long) ITL sample, and the recomputed tokens are counted. Rejected requests
// keep their reason and do not count as finished.
//
// The engine calls the event methods for every running sequence every step, so they are O(1) and
// index a vector by handle; only arrived() and finished() grow vectors (amortized), and only a
// rejection's reason may allocate. A completed request
// becomes a request_record handed to the row sink at once and is not kept; what remains per
// request is four doubles for the exact TTFT/TPOT/e2e/queue percentiles, and only for the first
// 65,536 finished requests (outcome/latency_samples.hpp). Token gaps go to a constant-memory
// sketch (outcome/quantile_sketch.hpp).
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "load/request.hpp"
#include "outcome/exact_stats.hpp"
#include "outcome/latency_samples.hpp"
#include "outcome/quantile_sketch.hpp"
#include "outcome/request_record.hpp"
#include "outcome/slo.hpp"
#include "outcome/slo_misses.hpp"

namespace kvscope {

// A request from arrived() until finished() or rejected(); the slot is then reused by a later
// arrival, so a handle must not be used after its request completed.
using request_handle = std::uint32_t;

struct outcome_latency {
  latency_stats ttft_s, tpot_s, itl_s, e2e_s, queue_s;
};

struct outcome_summary {
  // Exact over finished requests (ITL: within the sketch's relative error, see below), unless
  // latency_exact is false.
  outcome_latency latency;
  // False when more requests finished than latency_samples keeps: TTFT, TPOT, e2e and queue
  // percentiles then come from sketches too, within 0.5 %.
  bool latency_exact = true;
  std::uint64_t arrived = 0;
  std::uint64_t finished = 0;
  std::uint64_t rejected = 0;
  std::uint64_t in_flight = 0;  // arrived, neither finished nor rejected yet
  std::uint64_t good = 0;       // finished meeting every SLO given
  std::uint64_t prompt_tokens = 0;  // of finished requests
  std::uint64_t output_tokens = 0;  // of finished requests
  std::uint64_t preemptions = 0;        // over all requests
  std::uint64_t recomputed_tokens = 0;  // over all requests
  double duration_s = 0;
  double requests_per_s = 0;       // finished / duration
  double output_tokens_per_s = 0;  // output tokens of finished requests / duration
  // good / duration. With no SLO given every finished request is good, so this equals
  // requests_per_s (vLLM reports no goodput then).
  double goodput_rps = 0;
  // good / (finished + rejected): the share of completed requests that met the SLOs; with no
  // SLO given, finished / (finished + rejected). NaN while nothing completed.
  double slo_attainment = 0;
  // Why the misses missed, against the SLOs given to set_slo (empty: none given).
  slo_miss_tally misses;
};

class request_outcomes {
 public:
  using row_sink = std::function<void(const request_record&)>;

  // `sink` (may be empty) receives each record as its request completes, in completion order.
  explicit request_outcomes(row_sink sink = {});
  // Replaces the sink (records from now on go to it).
  void set_sink(row_sink sink) { sink_ = std::move(sink); }

  // The SLOs goodput counts against and whose misses summary() explains (latency_parts,
  // slo_misses.hpp). Set before the first request finishes.
  void set_slo(const slo_spec& slo) { slo_ = slo; }

  // A new request. Preconditions: times never go backwards for a request; arrival_s >= 0.
  request_handle arrived(std::uint64_t request_id, double arrival_s, std::uint32_t prompt_tokens,
                         std::uint32_t output_tokens);
  request_handle arrived(const request& r) {
    return arrived(r.id, r.arrival_s, r.prompt_tokens, r.output_tokens);
  }
  // Handed to the server at sent_s >= arrival (the step that queued it began then), after
  // client_wait_s at the client; `alone` is what the step model gives it on an idle server.
  void sent(request_handle h, double sent_s, double client_wait_s, const alone_latency& alone) noexcept;
  // Scheduled in a step at t (admitted, or admitted again after a preemption); the first call
  // sets the queue time.
  void scheduled(request_handle h, double t) noexcept;
  // Prompt tokens found in the prefix cache when it was (last) admitted.
  void prefix_hit(request_handle h, std::uint32_t cached_prompt_tokens) noexcept;
  // n >= 1 output tokens produced by the step ending at t. Like one streamed chunk in vLLM's
  // benchmark: the first sets the first-token time, each later call adds one ITL sample.
  void emitted(request_handle h, double t, std::uint32_t n = 1) noexcept;
  // emitted(h, t, 1) for each handle: a decode step. Equal gaps are added to the sketch at once.
  void emitted_batch(std::span<const request_handle> handles, double t) noexcept;
  // Preempted for recompute: its KV is dropped and `recomputed_tokens` will be computed again.
  void preempted(request_handle h, std::uint64_t recomputed_tokens) noexcept;

  // Sharing out a step's time (latency_parts). Each step, after scheduled() and preempted() and
  // before emitted_batch() and finished(): prefill_chunk() for each chunk computed, unscheduled()
  // for each running request given no token, then step_ended().
  // Computed tokens [from, to) of its prompt in a step of step_s; alone_s: that chunk alone.
  void prefill_chunk(request_handle h, std::uint32_t from, std::uint32_t to, double alone_s, double step_s) noexcept;
  // Running, but the step's token budget ran out before it.
  void unscheduled(request_handle h, const decode_shares& step) noexcept;
  // The step is over: those waiting waited for `waiting`; those decoding decoded in `step`.
  void step_ended(const decode_shares& step, wait_cause waiting) noexcept;
  // Multi-step scheduling: a token computed but held until the schedule's last step, when
  // emitted() streams it. The request decodes from now; the wait until its first token is
  // streamed counts as prefill_batched_s (the others' steps it waited through).
  void token_computed(request_handle h) noexcept;
  // Completes the request at t and emits its record; the handle becomes free.
  void finished(request_handle h, double t);
  // Completes the request as rejected at t, with a reason; the handle becomes free.
  void rejected(request_handle h, double t, std::string_view reason);

  // Totals and latency statistics so far; duration_s is the simulated run length (rates are NaN
  // unless it is positive). Requests still in flight count only as in_flight, but their token
  // gaps so far are already in the ITL statistics.
  outcome_summary summary(double duration_s) const;

  // What summary() counts, without its statistics: cheap enough to ask every few steps.
  struct tally {
    std::uint64_t finished = 0, rejected = 0, good = 0;
    // Finished requests that missed an SLO, and rejected ones.
    std::uint64_t missed() const noexcept { return finished + rejected - good; }
  };
  tally counts() const noexcept { return {samples_.count(), rejected_, good_}; }

  const quantile_sketch& itl_sketch() const noexcept { return itl_; }

 private:
  struct live_request {
    std::uint64_t id = 0;
    double arrival_s = 0;
    double first_scheduled_s = 0;  // NaN until scheduled
    double first_token_s = 0;      // NaN until the first token
    double last_token_s = 0;
    std::uint64_t recomputed_tokens = 0;
    std::uint32_t prompt_tokens = 0;
    std::uint32_t output_tokens = 0;  // as the load asked (checked in debug builds)
    std::uint32_t emitted = 0;
    std::uint32_t cached_prompt_tokens = 0;
    std::uint32_t preemptions = 0;
    // The tokens computed before its last preemption (recomputed until it gets past them).
    std::uint32_t recompute_until = 0;
    enum class stage : std::uint8_t { waiting, running, decoding } at = stage::waiting;
    bool preempted_before_first = false;
    bool live = false;
    // The running totals (waited_ while waiting, decoded_ while decoding) when it began to.
    std::array<double, 4> mark{};
    latency_parts parts;
    double client_wait_s = 0;
    alone_latency alone{NAN, NAN};
  };
  // Adds what the request waited since its mark to its parts (by cause, or as a preemption).
  void close_wait(live_request& r) noexcept;
  // Adds the decode shares since its mark to its parts.
  void close_decode(live_request& r) noexcept;
  void start_decoding(live_request& r) noexcept;
  void first_token_streamed(live_request& r) noexcept;
  // Fills record_ from the request's state and frees its slot.
  void complete(request_handle h, double t, request_outcome outcome);

  row_sink sink_;
  std::vector<live_request> live_;
  std::vector<request_handle> free_;
  latency_samples samples_;
  quantile_sketch itl_;
  request_record record_;  // reused so that completing a request does not allocate
  std::uint64_t arrived_ = 0, rejected_ = 0, prompt_tokens_ = 0, output_tokens_ = 0;
  std::uint64_t preemptions_ = 0, recomputed_tokens_ = 0, good_ = 0;
  slo_spec slo_;
  slo_miss_tally misses_;
  // Every step's time summed by why those waiting waited (index: wait_cause), and by share of
  // a decode step (own, prefill, migration): a request's part is the difference over its stay.
  std::array<double, wait_cause_count> waited_{};
  std::array<double, 3> decoded_{};
};

}  // namespace kvscope
