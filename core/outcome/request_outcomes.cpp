#include "outcome/request_outcomes.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace kvscope {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

}  // namespace

request_outcomes::request_outcomes(row_sink sink) : sink_(std::move(sink)) {}

request_handle request_outcomes::arrived(std::uint64_t request_id, double arrival_s,
                                         std::uint32_t prompt_tokens,
                                         std::uint32_t output_tokens) {
  assert(arrival_s >= 0);
  request_handle h = 0;
  if (free_.empty()) {
    assert(live_.size() < std::numeric_limits<request_handle>::max());
    h = static_cast<request_handle>(live_.size());
    live_.emplace_back();
  } else {
    h = free_.back();
    free_.pop_back();
  }
  live_request& r = live_[h];
  r = live_request{};
  r.id = request_id;
  r.arrival_s = arrival_s;
  r.first_scheduled_s = nan;
  r.first_token_s = nan;
  r.prompt_tokens = prompt_tokens;
  r.output_tokens = output_tokens;
  r.live = true;
  std::copy(waited_.begin(), waited_.end(), r.mark.begin());
  ++arrived_;
  return h;
}

void request_outcomes::sent(request_handle h, double sent_s, double client_wait_s,
                            const alone_latency& alone) noexcept {
  live_request& r = live_[h];
  assert(r.live && sent_s >= r.arrival_s && r.at == live_request::stage::waiting);
  r.parts.arrival_step_s = sent_s - r.arrival_s;
  r.client_wait_s = client_wait_s;
  r.alone = alone;
}

void request_outcomes::close_wait(live_request& r) noexcept {
  const double memory = waited_[1] - r.mark[1];
  const double slots = waited_[2] - r.mark[2];
  const double budget = waited_[3] - r.mark[3];
  if (r.emitted > 0) {
    r.parts.decode_preempted_s += memory + slots + budget;
  } else if (r.preempted_before_first) {
    r.parts.wait_preempted_s += memory + slots + budget;
  } else {
    r.parts.wait_kv_memory_s += memory;
    r.parts.wait_batch_slots_s += slots;
    r.parts.wait_token_budget_s += budget;
  }
}

void request_outcomes::close_decode(live_request& r) noexcept {
  r.parts.decode_s += decoded_[0] - r.mark[0];
  r.parts.decode_prefill_s += decoded_[1] - r.mark[1];
  r.parts.decode_migration_s += decoded_[2] - r.mark[2];
}

void request_outcomes::start_decoding(live_request& r) noexcept {
  r.at = live_request::stage::decoding;
  std::copy(decoded_.begin(), decoded_.end(), r.mark.begin());
}

void request_outcomes::scheduled(request_handle h, double t) noexcept {
  live_request& r = live_[h];
  assert(r.live && t >= r.arrival_s);
  if (std::isnan(r.first_scheduled_s)) r.first_scheduled_s = t;
  if (r.at == live_request::stage::waiting) {
    close_wait(r);
    r.at = live_request::stage::running;
  }
}

void request_outcomes::prefill_chunk(request_handle h, std::uint32_t from, std::uint32_t to, double alone_s,
                                     double step_s) noexcept {
  live_request& r = live_[h];
  assert(r.live && r.at == live_request::stage::running && to >= from);
  if (r.emitted > 0) {  // rebuilding the KV of prompt and outputs after a preemption
    r.parts.decode_preempted_s += step_s;
    return;
  }
  const double again =
      to > from && from < r.recompute_until
          ? static_cast<double>(std::min(to, r.recompute_until) - from) / static_cast<double>(to - from)
          : 0.0;
  r.parts.recompute_s += again * step_s;
  r.parts.prefill_s += (1 - again) * alone_s;
  r.parts.prefill_batched_s += (1 - again) * (step_s - alone_s);
}

void request_outcomes::unscheduled(request_handle h, const decode_shares& step) noexcept {
  live_request& r = live_[h];
  assert(r.live && r.at != live_request::stage::waiting);
  if (r.at == live_request::stage::decoding) {
    // step_ended() adds the step's shares to everyone decoding; this one only waited for the
    // prefill chunks that took the budget, so the whole step is theirs.
    r.parts.decode_prefill_s += step.own_s + step.migration_s;
    r.parts.decode_s -= step.own_s;
    r.parts.decode_migration_s -= step.migration_s;
  } else if (r.emitted > 0) {
    r.parts.decode_preempted_s += step.seconds();
  } else {
    r.parts.wait_token_budget_s += step.seconds();
  }
}

void request_outcomes::token_computed(request_handle h) noexcept {
  live_request& r = live_[h];
  assert(r.live);
  if (r.at != live_request::stage::decoding) start_decoding(r);
}

void request_outcomes::first_token_streamed(live_request& r) noexcept {
  // Held since it was computed (token_computed): that wait is part of its TTFT, not its decode.
  double held = 0;
  for (std::size_t i = 0; i < decoded_.size(); ++i) held += decoded_[i] - r.mark[i];
  r.parts.prefill_batched_s += held;
  std::copy(decoded_.begin(), decoded_.end(), r.mark.begin());
}

void request_outcomes::step_ended(const decode_shares& step, wait_cause waiting) noexcept {
  waited_[static_cast<std::size_t>(waiting)] += step.seconds();
  decoded_[0] += step.own_s;
  decoded_[1] += step.prefill_s;
  decoded_[2] += step.migration_s;
}

void request_outcomes::prefix_hit(request_handle h, std::uint32_t cached_prompt_tokens) noexcept {
  assert(live_[h].live);
  live_[h].cached_prompt_tokens = cached_prompt_tokens;
}

void request_outcomes::emitted(request_handle h, double t, std::uint32_t n) noexcept {
  live_request& r = live_[h];
  assert(r.live && n >= 1);
  if (r.at != live_request::stage::decoding) {
    start_decoding(r);
  } else if (r.emitted == 0) {
    first_token_streamed(r);
  }
  if (r.emitted == 0) {
    assert(t >= r.arrival_s);
    r.first_token_s = t;
  } else {
    assert(t >= r.last_token_s);
    itl_.add(t - r.last_token_s);
  }
  r.last_token_s = t;
  r.emitted += n;
}

void request_outcomes::emitted_batch(std::span<const request_handle> handles, double t) noexcept {
  // Sequences that decoded in the same previous step share a gap: add each run of equal gaps once.
  double run_gap = 0;
  std::uint64_t run = 0;
  for (const request_handle h : handles) {
    live_request& r = live_[h];
    assert(r.live);
    if (r.at != live_request::stage::decoding) start_decoding(r);
    if (r.emitted == 0) {
      r.first_token_s = t;
    } else {
      const double gap = t - r.last_token_s;
      assert(gap >= 0);
      if (run != 0 && gap != run_gap) {
        itl_.add(run_gap, run);
        run = 0;
      }
      run_gap = gap;
      ++run;
    }
    r.last_token_s = t;
    ++r.emitted;
  }
  if (run != 0) itl_.add(run_gap, run);
}

void request_outcomes::preempted(request_handle h, std::uint64_t recomputed_tokens) noexcept {
  live_request& r = live_[h];
  assert(r.live && r.at != live_request::stage::waiting);
  if (r.at == live_request::stage::decoding) close_decode(r);
  if (r.emitted == 0) {
    r.preempted_before_first = true;
    r.recompute_until = std::max(r.recompute_until, static_cast<std::uint32_t>(recomputed_tokens));
  }
  r.at = live_request::stage::waiting;
  std::copy(waited_.begin(), waited_.end(), r.mark.begin());
  ++r.preemptions;
  r.recomputed_tokens += recomputed_tokens;
  ++preemptions_;
  recomputed_tokens_ += recomputed_tokens;
}

void request_outcomes::complete(request_handle h, double t, request_outcome outcome) {
  live_request& r = live_[h];
  assert(r.live && t >= r.arrival_s);
  request_record& rec = record_;
  rec.request_id = r.id;
  rec.arrival_s = r.arrival_s;
  rec.first_scheduled_s = r.first_scheduled_s;
  rec.first_token_s = r.first_token_s;
  rec.finish_s = t;
  rec.prompt_tokens = r.prompt_tokens;
  rec.output_tokens = r.emitted;
  rec.cached_prompt_tokens = r.cached_prompt_tokens;
  rec.preemptions = r.preemptions;
  rec.recomputed_tokens = r.recomputed_tokens;
  rec.outcome = outcome;
  rec.parts = r.parts;
  rec.client_wait_s = r.client_wait_s;
  rec.alone_ttft_s = r.alone.ttft_s;
  rec.alone_tpot_s = r.alone.tpot_s;
  r.live = false;
  free_.push_back(h);
}

void request_outcomes::finished(request_handle h, double t) {
  // An engine never emits more than the load asked for (a 0-token request still gets one).
  assert(live_[h].emitted <= std::max<std::uint32_t>(live_[h].output_tokens, 1));
  if (live_[h].at == live_request::stage::decoding) close_decode(live_[h]);
  complete(h, t, request_outcome::finished);
  record_.reason.clear();
  samples_.add(record_.ttft_s(), record_.tpot_s(), record_.e2e_s(), record_.queue_s());
  if (meets_slo(slo_, record_.ttft_s(), record_.tpot_s(), record_.e2e_s())) ++good_;
  misses_.add_finished(slo_, record_.ttft_s(), record_.tpot_s(), record_.e2e_s(), record_.output_tokens,
                       record_.parts, {record_.alone_ttft_s, record_.alone_tpot_s});
  prompt_tokens_ += record_.prompt_tokens;
  output_tokens_ += record_.output_tokens;
  if (sink_) sink_(record_);
}

void request_outcomes::rejected(request_handle h, double t, std::string_view reason) {
  complete(h, t, request_outcome::rejected);
  record_.reason.assign(reason);
  record_.parts = {};  // a rejected request's waits explain no latency
  ++rejected_;
  if (!slo_.empty()) misses_.add_rejected();
  if (sink_) sink_(record_);
}

outcome_summary request_outcomes::summary(double duration_s) const {
  outcome_summary s;
  s.arrived = arrived_;
  s.finished = samples_.count();
  s.rejected = rejected_;
  s.in_flight = arrived_ - s.finished - rejected_;
  s.good = good_;
  s.prompt_tokens = prompt_tokens_;
  s.output_tokens = output_tokens_;
  s.preemptions = preemptions_;
  s.recomputed_tokens = recomputed_tokens_;
  s.duration_s = duration_s;
  s.misses = misses_;

  const request_latency_stats stats = samples_.stats();
  s.latency = {stats.ttft_s, stats.tpot_s, sketch_stats(itl_), stats.e2e_s, stats.queue_s};
  s.latency_exact = samples_.exact();

  const auto per_second = [duration_s](std::uint64_t n) {
    return duration_s > 0 ? static_cast<double>(n) / duration_s : nan;
  };
  s.requests_per_s = per_second(s.finished);
  s.output_tokens_per_s = per_second(s.output_tokens);
  s.goodput_rps = per_second(s.good);
  const std::uint64_t completed = s.finished + s.rejected;
  s.slo_attainment =
      completed == 0 ? nan : static_cast<double>(s.good) / static_cast<double>(completed);
  return s;
}

}  // namespace kvscope
