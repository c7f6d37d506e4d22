#include "engine/engine.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <stdexcept>

#include "memory/error_factors.hpp"
#include "memory/quality.hpp"
#include "util/number_text.hpp"
#include "util/parallel.hpp"

namespace kvscope {
namespace {

engine_setup resolved_or_throw(const engine_options& options) {
  auto setup = resolve_setup(options);
  if (!setup) throw std::invalid_argument(setup.error());
  return std::move(*setup);
}

}  // namespace

engine::engine(const engine_options& options, std::unique_ptr<request_source> load)
    : engine(resolved_or_throw(options), std::move(load)) {}

engine::engine(engine_setup setup, std::unique_ptr<request_source> load)
    : setup_(std::move(setup)),
      shape_(shape_of(setup_.model)),
      pricing_(setup_, shape_.fp16_bytes_per_token()),
      load_(std::move(load)),
      policy_(setup_.options.policy),
      error_factors_(attention_error_factors_for(setup_.options.q4_storage, setup_.options.q4o_channels)) {
  const engine_options& o = setup_.options;
  outcomes_.set_slo(setup_.slo);
  cache_ = std::make_unique<paged_cache>(cache_config(setup_));
  kv_ = std::make_unique<block_manager>(*cache_, o.prefix_caching);
  kv_->set_policy(o.policy);
  kv_->set_cold_level(policy_.level());
  kv_->set_guaranteed_level(o.policy.min_level);
  sched_ = std::make_unique<scheduler>(o.scheduler, *kv_);
  data_.seed = o.seed;
  client_limit_ = o.max_concurrency > 0 ? o.max_concurrency
                  : load_                ? load_->client_concurrency()
                                         : 0;
  request r;
  if (load_ && load_->next(r)) next_arrival_ = std::move(r);
  last_.free_bytes = cache_->pool().budget_bytes();
}

engine::~engine() = default;

namespace {

// Bytes of cached blocks nobody references: evictable, so free to vLLM's kv_cache_usage_perc.
// The empty slots of split frames are attributed to cached and referenced blocks pro rata
// (exact when a tier holds only one kind; an estimate in between, without a frame scan).
double evictable_bytes(const pool_usage& usage) noexcept {
  double evictable = static_cast<double>(usage.cached_bytes);
  for (const auto& tier : usage.tiers) {
    if (tier.blocks > 0) {
      evictable += static_cast<double>(tier.slack_bytes) * static_cast<double>(tier.cached_blocks) /
                   static_cast<double>(tier.blocks);
    }
  }
  return evictable;
}

// As vLLM's kv_cache_usage_perc: the bytes sequences reference, over the budget, given the
// evictable bytes (evictable_bytes) when the caller has them already.
double referenced_share(const pool_usage& usage, double evictable) noexcept {
  const double in_use = static_cast<double>(usage.bytes_in_use) - evictable;
  return std::clamp(in_use / static_cast<double>(usage.budget_bytes), 0.0, 1.0);
}

double referenced_share(const pool_usage& usage) noexcept {
  return referenced_share(usage, evictable_bytes(usage));
}

// std::llround of a finite x in [0, 2^63), without a libm call every step: the whole part, plus
// one when the fraction (exact as x - whole: both are multiples of x's last place) is a half or more.
std::uint64_t round_non_negative(double x) noexcept {
  const auto whole = static_cast<std::uint64_t>(x);
  return whole + (x - static_cast<double>(whole) >= 0.5 ? 1 : 0);
}

// Expected attention error: the share of attended token-reads at each level times its factor.
double exposure(const pool_usage& usage, const std::array<double, kv_level_count>& factors) noexcept {
  double weighted = 0, reads = 0;
  for (std::size_t l = 0; l < kv_level_count; ++l) {
    const auto r = static_cast<double>(usage.tiers[l].references);
    weighted += r * factors[l];
    reads += r;
  }
  return reads > 0 ? weighted / reads : 0;
}

}  // namespace

double engine::pressure() const noexcept { return referenced_share(cache_->pool().usage()); }

bool engine::finished() const noexcept {
  return !next_arrival_ && client_queue_.empty() && sched_->idle();
}

double engine::load_progress() const noexcept {
  return next_arrival_ && load_ ? load_->progress() : 1.0;
}

void engine::pull_arrivals() {
  // Nothing to do until the next request arrives: jump the clock instead of idling.
  if (sched_->idle() && client_queue_.empty() && next_arrival_ &&
      next_arrival_->arrival_s > clock_s_) {
    clock_s_ = next_arrival_->arrival_s;
  }
  while (next_arrival_ && next_arrival_->arrival_s <= clock_s_) {
    if (totals_.first_arrival_s < 0) totals_.first_arrival_s = next_arrival_->arrival_s;
    totals_.last_arrival_s = next_arrival_->arrival_s;
    totals_.step_seconds_by_last_arrival = totals_.step_seconds_sum;
    if (client_limit_ > 0) {
      client_queue_.push_back(std::move(*next_arrival_));
    } else {
      send(*next_arrival_);
    }
    totals_.waiting_at_last_arrival = sched_->num_waiting() + client_queue_.size();
    check_waiting();
    request r;
    if (load_->next(r)) {
      next_arrival_ = std::move(r);
    } else {
      next_arrival_.reset();
    }
  }
  // With a concurrency limit a request waits at the client until one in flight completes; as
  // `vllm bench serve --max-concurrency`, its latencies count from when it is sent.
  while (!client_queue_.empty() && in_flight_ < client_limit_) {
    request r = std::move(client_queue_.front());
    client_queue_.pop_front();
    const double waited = clock_s_ - r.arrival_s;
    r.arrival_s = clock_s_;
    send(r, waited);
  }
}

void engine::check_waiting() const {
  const std::size_t waiting = sched_->num_waiting() + client_queue_.size();
  if (waiting <= setup_.options.max_waiting_requests) return;
  const double t = clock_s_;
  const std::uint64_t arrived = totals_.requests_total + client_queue_.size();
  const std::uint64_t finished = totals_.requests_finished;
  const auto per_second = [t](std::uint64_t n) {
    return t > 0 ? format_significant(static_cast<double>(n) / t, 3) + "/s" : std::string("all at 0 s");
  };
  std::string message = "overloaded: " + std::to_string(waiting) + " requests waiting at " +
                        format_significant(t, 4) + " s of simulated time (max_waiting_requests " +
                        std::to_string(setup_.options.max_waiting_requests) + "); by then " +
                        std::to_string(arrived) + " had arrived (" + per_second(arrived) + ") and " +
                        std::to_string(finished) + " finished";
  if (finished > 0 && t > 0) {
    message += " (" + per_second(finished) + "): requests arrive about " +
               format_significant(static_cast<double>(arrived) / static_cast<double>(finished), 3) +
               "x faster than this server finishes them";
  } else {
    message += ": the server finished none of them yet";
  }
  throw overload_error(message);
}

void engine::send(const request& arrived, double client_wait_s) {
  const request_handle h = outcomes_.arrived(arrived);
  outcomes_.sent(h, clock_s_, client_wait_s, pricing_.alone(arrived.prompt_tokens, arrived.output_tokens));
  ++totals_.requests_total;
  const std::uint64_t length = std::uint64_t{arrived.prompt_tokens} + arrived.output_tokens;
  if (setup_.max_model_len > 0 && length > setup_.max_model_len) {
    // As vLLM: a request longer than the model's context is refused, not queued.
    std::string why = "prompt " + std::to_string(arrived.prompt_tokens) + " + output " +
                      std::to_string(arrived.output_tokens) + " tokens exceed max_model_len " +
                      std::to_string(setup_.max_model_len);
    outcomes_.rejected(h, clock_s_, why);
    sched_->reject(arrived, rejection_cause::longer_than_context, std::move(why), h);
    return;
  }
  sched_->enqueue(arrived, h);
  ++in_flight_;
}

void engine::write_new_tokens() {
  struct job {
    sequence_id seq;
    std::uint64_t stream;
    std::uint32_t from, to;
  };
  std::vector<job> jobs;
  for (const auto& s : sched_->running()) {
    if (s.scheduled_tokens == 0) continue;
    jobs.push_back({kv_->cache_id(s.id), kv_->stream(s.id), s.computed_tokens - s.scheduled_tokens,
                    s.computed_tokens});
  }
  // New tokens never land in a shared block (prefix hits end before a sequence's first new
  // token), so sequences write disjoint blocks and may go in parallel; each block's bytes
  // depend on its own tokens only, whatever the thread count.
  struct scratch {
    std::vector<float> k, v;
    std::vector<fp16_bits> half;
  };
  const auto head_values = static_cast<std::size_t>(shape_.head_values());
  parallel_chunks(std::size_t{0}, jobs.size(), std::size_t{1}, [&](std::size_t begin, std::size_t end) {
    scratch buf{std::vector<float>(head_values), std::vector<float>(head_values),
                std::vector<fp16_bits>(head_values)};  // one token's worth, per chunk
    for (std::size_t i = begin; i != end; ++i) {
      const job& j = jobs[i];
      for (std::uint32_t pos = j.from; pos < j.to; ++pos) {
        for (std::uint32_t layer = 0; layer < shape_.layers; ++layer) {
          data_.fill(kv_part::key, shape_, j.stream, pos, layer, buf.k);
          data_.fill(kv_part::value, shape_, j.stream, pos, layer, buf.v);
          assert_ok(cache_->store_kv(j.seq, layer, pos, buf.k, buf.v, buf.half));
        }
      }
    }
  });
  for (const job& j : jobs) assert_ok(cache_->advance(j.seq, j.to - j.from));
}

void engine::measure_quality() {
  std::vector<sequence_stream> streams;
  for (const auto& s : sched_->running()) streams.push_back({kv_->cache_id(s.id), kv_->stream(s.id)});
  if (streams.empty()) return;
  const auto quant = measure_cache_error(*cache_, data_, streams, setup_.options.quality_blocks);
  std::array<error_sum, kv_level_count> attention{};
  // Attention error of a few sequences, attributed to the most compact tier each one holds.
  const std::size_t stride = std::max<std::size_t>(1, streams.size() / 4);
  for (std::size_t i = 0; i < streams.size(); i += stride) {
    const auto table = cache_->block_table(streams[i].seq);
    if (!table || table->empty()) continue;
    int most = 0;
    for (block_id b : *table) most = std::max(most, ordinal(cache_->pool().tier(b)));
    if (auto e = measure_attention_error(*cache_, data_, streams[i])) {
      attention[most] += *e;
      totals_.attention_squared_error_all += e->squared_error;
      totals_.attention_squared_reference_all += e->squared_reference;
    }
  }
  for (std::size_t l = 0; l < kv_level_count; ++l) {
    last_quant_error_[l] = quant[l].relative();
    last_attention_error_[l] = attention[l].relative();
    totals_.quant_squared_error[l] += quant[l].squared_error;
    totals_.quant_squared_reference[l] += quant[l].squared_reference;
    totals_.attention_squared_error[l] += attention[l].squared_error;
    totals_.attention_squared_reference[l] += attention[l].squared_reference;
  }
  ++totals_.quality_samples;
}

void engine::record(const step_plan& plan, double step_seconds, const step_work& work,
                    const pool_usage& usage) {
  step_metrics& m = last_;  // every field is set below: filled in place, not copied
  m.step = steps_;
  m.sim_time_s = clock_s_;
  const double evictable = evictable_bytes(usage);
  m.kv_cache_usage_perc = referenced_share(usage, evictable);
  m.pressure_ewma = policy_.ewma();
  m.level = level_in_force(usage);
  for (std::size_t l = 0; l < kv_level_count; ++l) m.bytes_per_level[l] = usage.tiers[l].frame_bytes();
  m.scale_bytes = usage.scale_bytes;
  m.free_bytes = usage.free_bytes;
  m.cached_bytes = round_non_negative(evictable);
  m.num_requests_running = static_cast<std::uint32_t>(sched_->num_running());
  m.num_requests_waiting = static_cast<std::uint32_t>(sched_->num_waiting());
  m.num_preemptions_total = sched_->preemptions_total();
  m.level_transitions_total = policy_.upgrades() + policy_.downgrades();
  m.prefix_cache_hits = kv_->prefix_stats().hits;
  m.prefix_cache_queries = kv_->prefix_stats().queries;
  m.decode_tokens = plan.decode_tokens;
  m.prefill_tokens = plan.prefill_tokens;
  m.requests_finished_total = sched_->finished_total();
  m.quant_rel_rmse = last_quant_error_;
  m.attention_rel_l2 = last_attention_error_;
  m.step_seconds = step_seconds;
  for (std::size_t l = 0; l < kv_level_count; ++l) m.kv_bytes_read[l] = work.kv_bytes_read_by_level[l];
  m.attention_error_exposure = exposure(usage, error_factors_);
  std::uint64_t attended = 0;
  for (const auto& tier : usage.tiers) attended += tier.references;
  if (attended > 0) {
    totals_.exposure_sum += m.attention_error_exposure;
    ++totals_.exposure_steps;
  }

  totals_.requests_finished = sched_->finished_total();
  totals_.requests_rejected = sched_->rejected().size();
  totals_.preemptions = m.num_preemptions_total;
  totals_.level_transitions = m.level_transitions_total;
  totals_.decode_token_steps += plan.decode_tokens;
  totals_.prefill_tokens += plan.prefill_tokens;
  totals_.peak_usage = std::max(totals_.peak_usage, m.kv_cache_usage_perc);
  totals_.usage_sum += m.kv_cache_usage_perc;
  for (std::size_t l = 0; l < kv_level_count; ++l) {
    totals_.peak_bytes_per_level[l] = std::max(totals_.peak_bytes_per_level[l], m.bytes_per_level[l]);
  }
  totals_.peak_scale_bytes = std::max(totals_.peak_scale_bytes, m.scale_bytes);
  totals_.prefix = kv_->prefix_stats();
}

bool engine::step() {
  if (finished()) return false;
  pull_arrivals();
  const double start_s = clock_s_;
  const step_plan plan = sched_->schedule();
  measured_step measured = measure_and_advance(plan);
  step_work& work = measured.work;
  work.scheduled_earlier = plan.scheduled_earlier;
  if (setup_.options.payload == payload_mode::data) write_new_tokens();
  sched_->complete(plan);

  // Only the ewma family has a controller; the others place blocks by their own rule and
  // leave its state (level, EWMA, transitions) untouched.
  const policy_config& policy = policy_.config();
  precision level = policy_.level();
  pool_usage usage = cache_->pool().usage();
  if (policy.family == policy_family::ewma) {
    level = *policy_.observe_alone(referenced_share(usage));
    kv_->set_cold_level(level);
  }
  const auto migrated = cache_->migrate(policy, level, setup_.options.migration_batch);
  // Only a migration changes the pool between here and record(): reuse the usage otherwise.
  if (migrated.blocks > 0 || migrated.stalled) usage = cache_->pool().usage();
  totals_.migrated_blocks += migrated.blocks;
  // Re-quantizing reads each block at its old level and writes it at its new one:
  // sum(old + new) = 2 sum(new) + bytes freed.
  std::uint64_t new_bytes = 0;
  for (precision p : all_precisions) {
    new_bytes += migrated.blocks_by_level[ordinal(p)] * cache_->pool().layout(p).total_bytes();
  }
  work.migration_bytes = static_cast<std::uint64_t>(
      std::max<std::int64_t>(0, static_cast<std::int64_t>(2 * new_bytes) + migrated.bytes_freed));
  double seconds = 0;
  if (setup_.timing) {
    const step_time t = setup_.timing->estimate(work);
    seconds = t.seconds;
    step_time_totals& terms = totals_.step_terms;
    terms.matmuls += t.matmul_s;
    terms.attention += t.attention_s;
    terms.all_reduces += t.comm_s;
    terms.elementwise += t.elementwise_s;
    terms.overheads += t.overhead_s;
  } else {
    seconds = setup_.options.timing.seconds(plan);
  }
  // Every later time is a sum of step times: one that is not a finite, non-negative number
  // would stall or poison every loop over time (latency windows, the arrival loop).
  if (!(std::isfinite(seconds) && seconds >= 0)) {
    throw std::runtime_error("step-time model gave " + std::to_string(seconds) +
                             " s for a step: check the GPU and timing options");
  }
  clock_s_ += seconds;
  totals_.step_seconds_sum += seconds;
  record_outcomes(start_s, plan, measured, seconds);
  if (setup_.options.payload == payload_mode::data && setup_.options.quality_every > 0 &&
      steps_ % setup_.options.quality_every == 0) {
    measure_quality();
  }
  record(plan, seconds, work, usage);
  ++steps_;
  return true;
}

engine::measured_step engine::measure_and_advance(const step_plan& plan) {
  measured_step m;
  m.work.tokens = std::uint64_t{plan.prefill_tokens} + plan.decode_tokens;
  // The linear model needs only the token counts, and data mode advances as it writes.
  const bool timed = setup_.timing.has_value();
  const bool accounting = setup_.options.payload != payload_mode::data;
  if (!timed && !accounting) return m;
  step_work& w = m.work;
  if (timed) {
    // Before advancing: with a sliding window, advancing drops the blocks that fell out of it.
    const auto& references = cache_->pool().references();
    for (precision p : all_precisions) {
      const int l = ordinal(p);
      w.kv_bytes_read_by_level[l] = references[l] * cache_->pool().layout(p).total_bytes();
      w.kv_token_reads_by_level[l] = references[l] * setup_.options.block_size;
    }
    w.kv_bytes_written = w.tokens * shape_.fp16_bytes_per_token();  // new tokens land at fp16
  }
  // One walk over the running sequences for both: every step makes it, for every sequence.
  // A decode token without a window lands in a block the scheduler has just made sure of.
  // (The cache by reference: through the unique_ptr it was loaded again for every sequence. A
  // running sequence's memory_slot is its cache id: no mapping of ids per sequence either.)
  paged_cache& cache = *cache_;
  const bool one_by_one = cache.config().max_tokens == 0;
  decode_mix all, decoding;
  for (const auto& s : sched_->running()) {
    if (s.scheduled_tokens == 0) continue;
    // Accounting mode stores nothing: the lengths are all there is to write.
    if (accounting) {
      assert(s.memory_slot == kv_->cache_id(s.id));
      if (s.scheduled_tokens == 1 && one_by_one) {
        cache.advance_one(s.memory_slot);
      } else {
        assert_ok(cache.advance(s.memory_slot, s.scheduled_tokens));
      }
    }
    if (timed) add_sequence_work(all, decoding, s);
  }
  w.sequences += all.sequences;
  w.context_token_reads += all.context_token_reads;
  m.context_tokens += all.context_tokens;
  m.decoding = decoding;
  return m;
}

void engine::record_outcomes(double step_start_s, const step_plan& plan, const measured_step& measured,
                             double seconds) {
  const auto& ev = sched_->events();
  for (const auto& a : ev.admitted) {
    outcomes_.scheduled(a.tag, step_start_s);
    outcomes_.prefix_hit(a.tag, a.cached_prompt_tokens);
  }
  for (const auto& p : ev.preempted) outcomes_.preempted(p.tag, p.recomputed_tokens);
  // The step's time shared out (outcome/latency_parts.hpp): each prefill chunk's own part is its
  // step alone; the decoding requests share the step without the chunks and the migration.
  for (const auto& c : ev.prefill_chunks) {
    const double alone = std::min(seconds, pricing_.chunk_alone(measured.work, c.from, c.to, measured.context_tokens));
    outcomes_.prefill_chunk(c.tag, c.from, c.to, alone, seconds);
  }
  const decode_shares shares = pricing_.split(measured.work, plan.prefill_tokens, plan.decode_tokens,
                                              measured.decoding, measured.context_tokens, seconds);
  for (const auto tag : ev.unscheduled) outcomes_.unscheduled(tag, shares);
  outcomes_.step_ended(shares, ev.waiting);
  std::size_t completed = ev.finished.size();
  if (setup_.options.scheduler.num_scheduler_steps > 1) {
    for (const auto tag : ev.emitted) outcomes_.token_computed(tag);
    completed = stream_held(ev);
  } else {
    outcomes_.emitted_batch(ev.emitted, clock_s_);
    for (const auto tag : ev.finished) outcomes_.finished(tag, clock_s_);
  }
  const auto& rejected = sched_->rejected();
  for (std::size_t i = ev.rejected_before; i < rejected.size(); ++i) {
    outcomes_.rejected(rejected[i].tag, step_start_s, rejected[i].reason);
  }
  in_flight_ -= static_cast<std::uint32_t>(completed + (rejected.size() - ev.rejected_before));
}

std::size_t engine::stream_held(const step_events& ev) {
  for (const auto tag : ev.emitted) {
    if (tag >= held_tokens_.size()) held_tokens_.resize(tag + 1, 0);
    if (held_tokens_[tag]++ == 0) held_order_.push_back(tag);
  }
  held_finished_.insert(held_finished_.end(), ev.finished.begin(), ev.finished.end());
  // vLLM processes a multi-step schedule's output after its last step: each request's tokens
  // reach the client as one chunk (one ITL gap), and a request that finished inside the
  // schedule completes, and frees its client's slot, only then.
  if (!sched_->stream_boundary() && !sched_->idle()) return 0;
  for (const auto h : held_order_) {
    outcomes_.emitted(h, clock_s_, held_tokens_[h]);
    held_tokens_[h] = 0;
  }
  held_order_.clear();
  for (const auto h : held_finished_) outcomes_.finished(h, clock_s_);
  const std::size_t completed = held_finished_.size();
  held_finished_.clear();
  return completed;
}

expected<void, std::string> engine::reconfigure(const policy_config& config) {
  auto r = policy_.reconfigure(config);
  if (!r) return r;
  kv_->set_policy(config);
  kv_->set_guaranteed_level(config.min_level);
  kv_->set_cold_level(policy_.level());
  return {};
}

precision engine::level_in_force(const pool_usage& usage) const noexcept {
  if (policy_.config().family == policy_family::ewma) return policy_.level();
  // No controller: the most compact level any sequence's block is held at.
  for (std::size_t l = kv_level_count - 1; l > 0; --l) {
    if (usage.tiers[l].references > 0) return all_precisions[l];
  }
  return precision::fp16;
}

precision engine::level() const noexcept { return level_in_force(cache_->pool().usage()); }

pool_view engine::view_pool() const {
  pool_view v;
  v.step = steps_;
  cache_->pool().snapshot(v.frames);
  for (const auto& q : sched_->running()) {
    sequence_summary summary;
    summary.id = kv_->cache_id(q.id);
    summary.request_id = q.req.id;
    summary.phase = q.in_prefill() ? sequence_phase::prefill : sequence_phase::decode;
    summary.prompt_tokens = q.req.prompt_tokens;
    summary.output_tokens = q.req.output_tokens;
    summary.tokens = q.computed_tokens;
    if (const auto table = cache_->block_table(summary.id)) {
      for (const block_id b : *table) {
        const auto info = cache_->pool().info(b);
        summary.block_table.push_back({info.frame, info.slot, info.tier, info.refcount > 1});
      }
    }
    v.sequences.push_back(std::move(summary));
  }
  return v;
}

}  // namespace kvscope
