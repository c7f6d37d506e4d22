#include "sched/scheduler.hpp"

#include <algorithm>
#include <cmath>

namespace kvscope {

scheduler::scheduler(const scheduler_config& config, kv_cache_manager& kv)
    : config_(config), kv_(kv) {}

void scheduler::enqueue(const request& r, std::uint32_t tag) {
  sequence_state s;
  s.id = next_id_++;
  s.tag = tag;
  s.req = r;
  s.req.prompt_tokens = std::max<std::uint32_t>(r.prompt_tokens, 1);  // a step computes >= 1 token
  s.prefill_target = s.req.prompt_tokens;
  waiting_.push_back(std::move(s));
}

std::string_view describe(rejection_cause c) noexcept {
  switch (c) {
    case rejection_cause::longer_than_context: return "longer than the model's context";
    case rejection_cause::larger_than_pool: return "larger than the whole KV pool";
    case rejection_cause::prompt_over_watermark: return "prompt and watermark larger than the pool";
    case rejection_cause::stalled_alone: return "could not grow even running alone";
    case rejection_cause::prompt_fits_no_pool: return "prompt did not fit even running alone";
  }
  return "refused";
}

void scheduler::reject(const request& r, rejection_cause cause, std::string reason, std::uint32_t tag) {
  rejected_.push_back({r.id, std::move(reason), tag, cause});
  ++rejected_by_cause_[static_cast<std::size_t>(cause)];
}

void scheduler::preempt_last() {
  sequence_state s = std::move(running_.back());
  running_.pop_back();
  events_.preempted.push_back({s.tag, s.computed_tokens});
  kv_.end_sequence(s.id);
  s.computed_tokens = 0;
  s.scheduled_tokens = 0;
  s.quiet_tokens = 0;
  s.memory_slot = no_sequence;
  s.prefill_target = s.req.prompt_tokens + s.generated_tokens;
  waiting_.push_front(std::move(s));
  ++preemptions_total_;
}

// Grows running_[index] by `tokens`, preempting from the back until it fits. False when the
// sequence itself had to be preempted. Alone, a prefill chunk that does not fit is halved until
// it does: the cache compacts the blocks behind it step by step, and nothing else would free
// memory; only when not even one token fits does it preempt itself.
bool scheduler::grow(std::size_t index, std::uint32_t& tokens) {
  for (;;) {
    auto& s = running_[index];
    if (kv_.allocate_slots(s.id, s.computed_tokens + tokens)) {
      s.quiet_tokens = kv_.quiet_tokens(s.id);
      return true;
    }
    const bool self = running_.size() - 1 == index;
    if (self && index == 0) {
      if (tokens > 1) {
        tokens /= 2;
        continue;
      }
      if (s.computed_tokens > s.alone_reached) {
        s.alone_reached = s.computed_tokens;
        s.alone_stalls = 0;
      } else {
        ++s.alone_stalls;
      }
    }
    preempt_last();
    if (self) return false;
  }
}

void scheduler::reject_head(refusal why) {
  const sequence_state& s = waiting_.front();
  reject(s.req, why.cause, std::move(why.reason), s.tag);
  waiting_.pop_front();
}

std::optional<scheduler::refusal> scheduler::never_fits(const sequence_state& s, std::uint32_t reserve) const {
  const std::uint32_t target = s.prefill_target;
  // The most KV this request will ever hold: prompt plus every output but the last.
  const std::uint32_t peak = s.req.prompt_tokens + std::max<std::uint32_t>(s.req.output_tokens, 1) - 1;
  if (!kv_.could_ever_fit(peak, 0)) {
    return refusal{rejection_cause::larger_than_pool,
                   "needs " + std::to_string(peak) + " tokens of KV cache, more than the whole pool holds"};
  }
  // Admission wants the prompt plus the watermark free at once; in an empty pool too.
  if (!kv_.could_ever_fit(target, reserve)) {
    return refusal{rejection_cause::prompt_over_watermark,
                   "its " + std::to_string(target) + "-token prompt plus the free-frame watermark exceeds the whole pool"};
  }
  if (s.alone_stalls >= 2) {
    return refusal{rejection_cause::stalled_alone,
                   "it could not grow to " + std::to_string(peak) + " tokens even with nothing else running"};
  }
  return std::nullopt;
}

void scheduler::admit(std::uint32_t& budget, step_plan& plan) {
  if (waiting_.empty()) return;  // most steps: nothing below would change anything
  const auto reserve =
      static_cast<std::uint32_t>(std::ceil(config_.watermark * kv_.total_frames()));
  while (!waiting_.empty() && running_.size() < config_.max_num_seqs && budget > 0) {
    sequence_state& s = waiting_.front();
    if (auto why = never_fits(s, reserve)) {
      reject_head(std::move(*why));
      continue;
    }
    const std::uint32_t target = s.prefill_target;
    std::uint32_t hits = s.alone_stalls > 0 ? kv_.begin_sequence_afresh(s.id, s.req, target)
                                            : kv_.begin_sequence(s.id, s.req, target);
    if (!config_.chunked_prefill && target - hits > budget) {
      // Unchunked, a prompt goes whole or waits for the next step (vLLM V0's default).
      kv_.end_sequence(s.id);
      events_.waiting = wait_cause::token_budget;
      break;
    }
    std::uint32_t chunk = std::min(target - hits, budget);
    // Alone, nothing will free frames later: evict all it takes rather than wait for ever.
    const bool alone = running_.empty();
    const auto how = alone ? kv_cache_manager::eviction::as_far_as_needed
                           : kv_cache_manager::eviction::when_estimated_enough;
    if (!kv_.make_room_for(target - hits, reserve, how) || !kv_.allocate_slots(s.id, hits + chunk)) {
      kv_.end_sequence(s.id);  // give the shared prefix back; FCFS: nobody overtakes the head
      if (!alone) {
        events_.waiting = wait_cause::kv_memory;
        break;  // others will end and free frames
      }
      // Alone, waiting changes nothing: the same hits would fail again every step. Its cached
      // prefix blocks keep the level they were stored at and may take more room than the same
      // tokens computed now, so try once more without them; if even that fails, it never fits.
      bool fits = false;
      if (hits > 0) {
        hits = kv_.begin_sequence_afresh(s.id, s.req, target);
        chunk = std::min(target - hits, budget);
        fits = kv_.make_room_for(target - hits, reserve, how) && kv_.allocate_slots(s.id, hits + chunk);
        if (!fits) kv_.end_sequence(s.id);
      }
      if (!fits) {
        reject_head({rejection_cause::prompt_fits_no_pool,
                     "its " + std::to_string(target) +
                         "-token prompt plus the free-frame watermark does not fit the pool even with "
                         "nothing else running"});
        continue;
      }
    }
    s.computed_tokens = hits;
    s.quiet_tokens = kv_.quiet_tokens(s.id);
    s.memory_slot = kv_.slot(s.id);
    s.prefix_hit_tokens = hits;
    events_.admitted.push_back({s.tag, hits});
    prefix_hit_tokens_ += hits;
    s.scheduled_tokens = chunk;
    budget -= chunk;
    running_.push_back(std::move(s));
    waiting_.pop_front();
    ++plan.admitted;
  }
  if (events_.waiting == wait_cause::none && !waiting_.empty()) {
    events_.waiting = running_.size() >= config_.max_num_seqs ? wait_cause::batch_slots
                      : budget == 0                            ? wait_cause::token_budget
                                                               : wait_cause::kv_memory;
  }
}

step_plan scheduler::step() {
  auto plan = schedule();
  complete(plan);
  return plan;
}

step_plan scheduler::schedule() {
  step_plan plan;
  events_.admitted.clear();
  events_.emitted.clear();
  events_.preempted.clear();
  events_.finished.clear();
  events_.prefill_chunks.clear();
  events_.unscheduled.clear();
  events_.waiting = wait_cause::none;
  events_.rejected_before = rejected_.size();
  std::uint32_t budget = config_.max_num_batched_tokens;
  const std::uint64_t preemptions_before = preemptions_total_;
  if (running_.empty()) decode_run_ = 0;  // everything in the schedule finished: it is over
  const bool continues_schedule = decode_run_ != 0;

  // Unchunked (vLLM V0's default scheduler): whole prompts first, alone in their step; the
  // running decodes wait for a step that admits none. Never inside a multi-step schedule.
  if (!config_.chunked_prefill && decode_run_ == 0 && !waiting_.empty()) {
    const std::size_t admitted_from = running_.size();
    admit(budget, plan);
    if (plan.admitted > 0) {
      for (std::size_t r = 0; r < admitted_from; ++r) {
        running_[r].scheduled_tokens = 0;
        events_.unscheduled.push_back(running_[r].tag);
      }
      for (std::size_t a = admitted_from; a < running_.size(); ++a) account(running_[a], plan);
      return plan;
    }
  }
  // One walk: a sequence that grew is accounted at once. Growing a later one preempts only from
  // the back, never one already accounted, so this equals growing all first and accounting after.
  std::size_t i = 0;
  while (i < running_.size() && budget > 0) {
    i = decode_quiet(i, budget, plan);
    if (i == running_.size() || budget == 0) break;
    const sequence_state& s = running_[i];
    std::uint32_t want = s.in_prefill() ? std::min(s.prefill_target - s.computed_tokens, budget) : 1;
    // Within the memory's quiet run (most decode tokens) growing is a no-op: skip the call.
    if (s.computed_tokens + want > s.quiet_tokens && !grow(i, want)) {
      break;  // it preempted itself: everyone after it is gone too
    }
    running_[i].scheduled_tokens = want;
    budget -= want;
    account(running_[i], plan);
    ++i;
  }
  for (std::size_t rest = i; rest < running_.size(); ++rest) {
    running_[rest].scheduled_tokens = 0;
    events_.unscheduled.push_back(running_[rest].tag);
  }
  // As vLLM: no new admissions in a step that had to preempt, nor inside a multi-step schedule.
  const std::size_t admitted_from = running_.size();
  // (Unchunked, admissions were tried first, above, and left their waiting cause.)
  if (config_.chunked_prefill && preemptions_total_ == preemptions_before && decode_run_ == 0) {
    admit(budget, plan);
  } else if (!waiting_.empty() && events_.waiting == wait_cause::none) {
    // Waiting behind a preemption is waiting for memory; inside a multi-step schedule, for the
    // steps of the others' work to end.
    events_.waiting = preemptions_total_ != preemptions_before ? wait_cause::kv_memory : wait_cause::token_budget;
  }
  for (std::size_t a = admitted_from; a < running_.size(); ++a) account(running_[a], plan);
  plan.preemptions = static_cast<std::uint32_t>(preemptions_total_ - preemptions_before);
  // A decode-only step opens or continues a multi-step schedule; one with prompt tokens (or
  // nothing) runs alone and ends any.
  const bool decode_only = plan.prefill_tokens == 0 && plan.decode_tokens > 0;
  plan.scheduled_earlier = continues_schedule && plan.prefill_tokens == 0;
  decode_run_ = decode_only && config_.num_scheduler_steps > 1 ? (decode_run_ + 1) % config_.num_scheduler_steps : 0;
  return plan;
}

std::size_t scheduler::decode_quiet(std::size_t i, std::uint32_t& budget, step_plan& plan) {
  // Nothing in here changes running_: its storage and length stay in registers.
  sequence_state* const run = running_.data();
  const std::size_t n = running_.size();
  std::uint32_t left = budget;
  std::uint32_t decoded = 0;
  for (; i < n && left > 0; ++i) {
    sequence_state& s = run[i];
    // What the general path does with want = 1 when computed_tokens + 1 <= quiet_tokens, and
    // account() then: a decode token stays a decode token, so only the output count can finish it.
    if (s.in_prefill() || s.computed_tokens >= s.quiet_tokens) break;
    s.scheduled_tokens = 1;
    --left;
    ++decoded;
    ++s.computed_tokens;
    ++s.generated_tokens;
    events_.emitted.push_back(s.tag);
    if (s.generated_tokens >= s.req.output_tokens) {
      plan.finished.push_back(s.id);
      events_.finished.push_back(s.tag);
    }
  }
  budget = left;
  plan.decode_tokens += decoded;
  return i;
}

void scheduler::account_prefill(sequence_state& s, step_plan& plan) {
  const std::uint32_t n = s.scheduled_tokens;
  events_.prefill_chunks.push_back({s.tag, s.computed_tokens, s.computed_tokens + n});
  s.computed_tokens += n;
  plan.prefill_tokens += n;
  // Completing the prefill samples the next output token.
  if (!s.in_prefill() && s.generated_tokens < s.req.output_tokens) {
    ++s.generated_tokens;
    events_.emitted.push_back(s.tag);
  }
  finish_if_done(s, plan);
}

void scheduler::complete(const step_plan& plan) {
  if (!plan.finished.empty()) {
    for (sequence_id id : plan.finished) kv_.finish_sequence(id);
    std::erase_if(running_, [&](const sequence_state& s) {
      return std::find(plan.finished.begin(), plan.finished.end(), s.id) != plan.finished.end();
    });
    finished_total_ += plan.finished.size();
  }
}

}  // namespace kvscope
