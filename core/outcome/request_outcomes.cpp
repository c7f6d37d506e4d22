#include "outcome/request_outcomes.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace kvscope {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

latency_stats sketch_stats(const quantile_sketch& s) noexcept {
  return {s.mean(), s.quantile(0.5), s.quantile(0.9), s.quantile(0.99), s.max()};
}

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
  ++arrived_;
  return h;
}

void request_outcomes::scheduled(request_handle h, double t) noexcept {
  live_request& r = live_[h];
  assert(r.live && t >= r.arrival_s);
  if (std::isnan(r.first_scheduled_s)) r.first_scheduled_s = t;
}

void request_outcomes::prefix_hit(request_handle h, std::uint32_t cached_prompt_tokens) noexcept {
  assert(live_[h].live);
  live_[h].cached_prompt_tokens = cached_prompt_tokens;
}

void request_outcomes::emitted(request_handle h, double t, std::uint32_t n) noexcept {
  live_request& r = live_[h];
  assert(r.live && n >= 1);
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
  assert(r.live);
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
  r.live = false;
  free_.push_back(h);
}

void request_outcomes::finished(request_handle h, double t) {
  // An engine never emits more than the load asked for (a 0-token request still gets one).
  assert(live_[h].emitted <= std::max<std::uint32_t>(live_[h].output_tokens, 1));
  complete(h, t, request_outcome::finished);
  record_.reason.clear();
  samples_.push_back({record_.ttft_s(), record_.tpot_s(), record_.e2e_s(), record_.queue_s()});
  prompt_tokens_ += record_.prompt_tokens;
  output_tokens_ += record_.output_tokens;
  if (sink_) sink_(record_);
}

void request_outcomes::rejected(request_handle h, double t, std::string_view reason) {
  complete(h, t, request_outcome::rejected);
  record_.reason.assign(reason);
  ++rejected_;
  if (sink_) sink_(record_);
}

outcome_summary request_outcomes::summary(double duration_s, const slo_spec& slo) const {
  outcome_summary s;
  s.arrived = arrived_;
  s.finished = samples_.size();
  s.rejected = rejected_;
  s.in_flight = arrived_ - s.finished - rejected_;
  s.prompt_tokens = prompt_tokens_;
  s.output_tokens = output_tokens_;
  s.preemptions = preemptions_;
  s.recomputed_tokens = recomputed_tokens_;
  s.duration_s = duration_s;

  std::vector<double> ttft, tpot, e2e, queue;
  for (auto* v : {&ttft, &tpot, &e2e, &queue}) v->reserve(samples_.size());
  for (const finished_sample& f : samples_) {
    ttft.push_back(f.ttft_s);
    tpot.push_back(f.tpot_s);
    e2e.push_back(f.e2e_s);
    queue.push_back(f.queue_s);
    if (meets_slo(slo, f.ttft_s, f.tpot_s, f.e2e_s)) ++s.good;
  }
  s.latency = {exact_stats(ttft), exact_stats(tpot), sketch_stats(itl_), exact_stats(e2e),
               exact_stats(queue)};

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
