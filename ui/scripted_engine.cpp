#include "scripted_engine.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace kvscope::ui {
namespace {

constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int slots_per_frame(precision p) { return p == precision::fp16 ? 1 : (p == precision::q4 ? 4 : 2); }

// Rounds to `bits` significant bits, exponents below `min_exp` flushed to that quantum.
double round_significant(double v, int bits, int min_exp) {
  if (v == 0) return 0;
  const int e = std::max(std::ilogb(v), min_exp);
  const double quantum = std::ldexp(1.0, e - (bits - 1));
  return std::nearbyint(v / quantum) * quantum;
}

// Relative RMSE of each level on synthetic keys: 64 groups of 32 values, standard normal with
// every 16th channel ten times larger (keys have outlier channels, DESIGN.md §3). Groups of 32
// with one scale each, as the cache stores them.
std::array<double, 4> measure_quant_error(std::uint64_t seed) {
  constexpr int n = 64 * 32;
  std::vector<double> x(n);
  std::uint64_t s = seed ^ 0x6b7673636f706521ull;
  for (int i = 0; i < n; i += 2) {
    const double u1 = (static_cast<double>(splitmix64(s) >> 11) + 1) * 0x1.0p-53;
    const double u2 = static_cast<double>(splitmix64(s) >> 11) * 0x1.0p-53;
    const double r = std::sqrt(-2 * std::log(u1));
    x[static_cast<std::size_t>(i)] = r * std::cos(2 * std::numbers::pi * u2);
    x[static_cast<std::size_t>(i) + 1] = r * std::sin(2 * std::numbers::pi * u2);
  }
  for (int i = 3; i < n; i += 16) x[static_cast<std::size_t>(i)] *= 10;
  std::array<double, 4> err{};
  double norm = 0;
  for (double v : x) norm += v * v;
  for (precision p : all_precisions) {
    double sq = 0;
    for (int g = 0; g < n; g += 32) {
      double amax = 0;
      for (int i = g; i < g + 32; ++i) amax = std::max(amax, std::fabs(x[static_cast<std::size_t>(i)]));
      for (int i = g; i < g + 32; ++i) {
        const double v = x[static_cast<std::size_t>(i)];
        double q = v;
        switch (p) {
          case precision::fp16: q = round_significant(v, 11, -14); break;
          case precision::q8: {
            const double d = amax / 127;
            q = d > 0 ? std::nearbyint(v / d) * d : 0;
            break;
          }
          case precision::fp8: {  // e4m3 with a per-group scale mapping amax to 448
            const double d = amax / 448;
            q = d > 0 ? std::min(448.0, std::fabs(round_significant(v / d, 4, -6))) * d : 0;
            q = std::copysign(q, v);
            break;
          }
          case precision::q4: {
            const double d = amax / 7;
            q = d > 0 ? std::clamp(std::nearbyint(v / d), -7.0, 7.0) * d : 0;
            break;
          }
        }
        sq += (v - q) * (v - q);
      }
    }
    err[static_cast<std::size_t>(ordinal(p))] = std::sqrt(sq / norm);
  }
  return err;
}

}  // namespace

ScriptedEngine::ScriptedEngine(const ScriptedEngineOptions& options)
    : options_(options), policy_(std::make_unique<policy_controller>(options.policy)) {
  init();
}

ScriptedEngine::~ScriptedEngine() = default;

double ScriptedEngine::targetPressure(double t) {
  struct knot { double t, p; };
  static constexpr knot knots[] = {{0, 0.10},  {4, 0.45},  {14, 0.78}, {22, 0.90},
                                   {30, 0.985}, {40, 0.985}, {47, 0.80}, {54, 0.45},
                                   {62, 0.30},  {80, 0.10}};
  t = std::fmod(std::max(0.0, t), 80.0);
  for (std::size_t i = 1; i < std::size(knots); ++i) {
    if (t <= knots[i].t) {
      const double a = (t - knots[i - 1].t) / (knots[i].t - knots[i - 1].t);
      const double smooth = a * a * (3 - 2 * a);  // eases in and out of each knot
      return knots[i - 1].p + (knots[i].p - knots[i - 1].p) * smooth;
    }
  }
  return knots[0].p;
}

void ScriptedEngine::init() {
  rng_ = options_.seed;
  frames_.assign(options_.frames, frame_info{});
  free_frames_.clear();
  for (std::uint32_t f = 0; f < options_.frames; ++f) free_frames_.push_back(f);
  for (auto& o : open_frames_) o.clear();
  in_use_blocks_ = {};
  running_.clear();
  waiting_.clear();
  prefixes_ = {};
  step_ = 0;
  sim_time_ = 0;
  next_arrival_ = 0;
  next_sequence_ = 0;
  next_request_ = preemptions_ = hits_ = queries_ = finished_ = 0;
  next_block_ = 0;
  measured_error_ = measure_quant_error(options_.seed);
  last_ = step_metrics{};
  last_.free_bytes = budget_bytes();
  last_.level = policy_->level();
}

void ScriptedEngine::reset(std::optional<std::uint64_t> seed) {
  if (seed) options_.seed = *seed;
  policy_->reset();
  init();
}

expected<void, std::string> ScriptedEngine::reconfigure(const policy_config& config) {
  auto r = policy_->reconfigure(config);
  if (r) options_.policy = config;
  return r;
}

std::uint64_t ScriptedEngine::budget_bytes() const {
  return static_cast<std::uint64_t>(options_.frames) * options_.frame_bytes;
}

std::uint64_t ScriptedEngine::next_random() { return splitmix64(rng_); }
double ScriptedEngine::uniform01() { return static_cast<double>(next_random() >> 11) * 0x1.0p-53; }
std::uint32_t ScriptedEngine::uniform(std::uint32_t lo, std::uint32_t hi) {
  return lo + static_cast<std::uint32_t>(next_random() % (hi - lo + 1));
}

ScriptedEngine::request ScriptedEngine::make_request() {
  request r;
  r.id = next_request_++;
  r.prompt = uniform(256, 1536);
  r.output = uniform(64, 512);
  const double u = uniform01();  // half the requests start with one of three system prompts
  r.group = u < 0.25 ? 0 : (u < 0.40 ? 1 : (u < 0.50 ? 2 : -1));
  return r;
}

// --- memory ------------------------------------------------------------------------------

std::uint64_t ScriptedEngine::payload_bytes() const {
  std::uint64_t total = 0;
  for (precision p : all_precisions) {
    total += in_use_blocks_[static_cast<std::size_t>(ordinal(p))] * options_.frame_bytes /
             static_cast<std::uint64_t>(slots_per_frame(p));
  }
  return total;
}

// One fp16 scale per 32 values: 1/16 of a q8 payload, 1/8 of a q4 one — 1/32 frame either way.
std::uint64_t ScriptedEngine::scale_bytes() const {
  const std::uint64_t quantized = in_use_blocks_[1] + in_use_blocks_[2] + in_use_blocks_[3];
  return quantized * options_.frame_bytes / 32;
}

double ScriptedEngine::pressure() const {
  return static_cast<double>(payload_bytes() + scale_bytes()) / static_cast<double>(budget_bytes());
}

// Frames taken plus the scale side table must stay within the budget (they share it), so a
// quantized block needs room for its scales as well as its slot.
bool ScriptedEngine::fits(bool new_frame, precision tier) const {
  if (new_frame && free_frames_.empty()) return false;
  const std::uint64_t taken = options_.frames - free_frames_.size() + (new_frame ? 1 : 0);
  const std::uint64_t extra = tier == precision::fp16 ? 0 : options_.frame_bytes / 32;
  return taken * options_.frame_bytes + scale_bytes() + extra <= budget_bytes();
}

void ScriptedEngine::count_in_use(precision tier, int delta) {
  auto& n = in_use_blocks_[static_cast<std::size_t>(ordinal(tier))];
  n = delta > 0 ? n + 1 : n - 1;
}

std::optional<ScriptedEngine::loc> ScriptedEngine::alloc(precision tier) {
  // Evicting a cached prefix can free or reshape frames, so every eviction starts over.
  for (;;) {
    if (const auto l = open_slot(tier)) {
      if (fits(false, tier)) return l;
    } else if (fits(true, tier)) {
      break;
    }
    if (!evict_cached_prefix()) return std::nullopt;
  }
  const std::uint32_t f = free_frames_.front();
  free_frames_.pop_front();
  frame_info& fr = frames_[f];
  fr = frame_info{};
  fr.tier = tier;
  fr.slot_count = static_cast<std::uint8_t>(slots_per_frame(tier));
  if (fr.slot_count > 1) open_frames_[static_cast<std::size_t>(ordinal(tier))].push_back(f);
  return loc{f, 0};
}

// A free slot in an already split frame of this tier, pruning stale entries of the open list.
std::optional<ScriptedEngine::loc> ScriptedEngine::open_slot(precision tier) {
  if (tier == precision::fp16) return std::nullopt;
  auto& open = open_frames_[static_cast<std::size_t>(ordinal(tier))];
  while (!open.empty()) {
    const std::uint32_t f = open.back();
    const frame_info& fr = frames_[f];
    if (fr.tier == tier && fr.slot_count > 1) {
      for (std::uint8_t s = 0; s < fr.slot_count; ++s) {
        if (fr.slots[s].refcount == 0 && !fr.slots[s].cached) return loc{f, s};
      }
    }
    open.pop_back();  // full, or freed and no longer of this tier
  }
  return std::nullopt;
}

void ScriptedEngine::occupy(loc l, sequence_id owner, std::int32_t logical, std::uint16_t fill) {
  slot_at(l) = block_slot{owner, logical, fill, 1, false, next_block_++};
  count_in_use(frames_[l.frame].tier, +1);
}

// Empties a slot (counters already settled by the caller); a frame left empty becomes free.
void ScriptedEngine::clear_slot(loc l) {
  frame_info& fr = frames_[l.frame];
  fr.slots[l.slot] = block_slot{};
  if (fr.is_free()) {
    fr = frame_info{};
    free_frames_.push_back(l.frame);  // FIFO like vLLM's free queue: memory scatters over time
  } else if (fr.slot_count > 1) {
    int empty = 0;
    for (int s = 0; s < fr.slot_count; ++s) {
      empty += fr.slots[static_cast<std::size_t>(s)].refcount == 0 && !fr.slots[static_cast<std::size_t>(s)].cached;
    }
    // Listed again only when it was full before: keeps the open list free of duplicates.
    if (empty == 1) open_frames_[static_cast<std::size_t>(ordinal(fr.tier))].push_back(l.frame);
  }
}

bool ScriptedEngine::evict_cached_prefix() {
  prefix* victim = nullptr;
  for (prefix& p : prefixes_) {
    if (p.blocks.empty() || slot_at(p.blocks.front()).refcount != 0) continue;
    if (!victim || p.last_use < victim->last_use) victim = &p;
  }
  if (!victim) return false;
  for (loc l : victim->blocks) clear_slot(l);
  victim->blocks.clear();
  return true;
}

// --- sequences ---------------------------------------------------------------------------

bool ScriptedEngine::admit(const request& r) {
  sequence s;
  s.id = next_sequence_++;
  s.req = r;
  const std::uint32_t bs = options_.block_size;
  const std::uint32_t blocks = (r.prompt + bs - 1) / bs;
  std::uint32_t first_new = 0;
  if (r.group >= 0) {
    prefix& p = prefixes_[static_cast<std::size_t>(r.group)];
    queries_ += options_.prefix_blocks;
    p.last_use = step_;
    if (!p.blocks.empty()) {  // prefix cache hit: share the blocks, bump refcounts
      hits_ += options_.prefix_blocks;
      for (loc l : p.blocks) {
        block_slot& b = slot_at(l);
        if (b.refcount == 0) {
          b.cached = false;
          b.owner = s.id;
          count_in_use(frames_[l.frame].tier, +1);
        }
        ++b.refcount;
        s.table.push_back(l);
      }
      first_new = options_.prefix_blocks;
    }
  }
  for (std::uint32_t i = first_new; i < blocks; ++i) {
    const auto l = alloc(precision::fp16);
    if (!l) {
      release(s, true);
      return false;
    }
    const auto fill = static_cast<std::uint16_t>(std::min(bs, r.prompt - i * bs));
    occupy(*l, s.id, static_cast<std::int32_t>(i), fill);
    s.table.push_back(*l);
  }
  if (r.group >= 0 && first_new == 0) {
    prefixes_[static_cast<std::size_t>(r.group)].blocks.assign(
        s.table.begin(), s.table.begin() + options_.prefix_blocks);
  }
  s.tokens = r.prompt;
  s.prefilled_this_step = true;
  running_.push_back(std::move(s));
  return true;
}

void ScriptedEngine::release(sequence& s, bool keep_prefix_cached) {
  const prefix* shared =
      s.req.group >= 0 ? &prefixes_[static_cast<std::size_t>(s.req.group)] : nullptr;
  for (std::size_t i = 0; i < s.table.size(); ++i) {
    const loc l = s.table[i];
    block_slot& b = slot_at(l);
    const bool is_prefix = shared && i < shared->blocks.size() && shared->blocks[i] == l;
    --b.refcount;
    if (b.refcount > 0) {  // still used by another sequence of the same group
      if (b.owner == s.id) {
        for (const sequence& o : running_) {
          if (o.id != s.id && o.req.group == s.req.group) { b.owner = o.id; break; }
        }
      }
      continue;
    }
    count_in_use(frames_[l.frame].tier, -1);
    if (is_prefix && keep_prefix_cached) {
      b.cached = true;
      b.owner = no_sequence;
    } else {
      if (is_prefix) prefixes_[static_cast<std::size_t>(s.req.group)].blocks.clear();
      clear_slot(l);
    }
  }
  s.table.clear();
}

void ScriptedEngine::preempt_youngest() {
  sequence victim = std::move(running_.back());
  running_.pop_back();
  release(victim, true);
  waiting_.push_front(victim.req);  // recompute: it goes first in line
  ++preemptions_;
}

// One decode token; false when the sequence itself had to be preempted for lack of memory.
bool ScriptedEngine::decode(sequence& s) {
  const std::uint32_t bs = options_.block_size;
  if (s.tokens % bs != 0) {
    ++s.tokens;
    ++slot_at(s.table.back()).fill;
    return true;
  }
  for (;;) {
    if (const auto l = alloc(precision::fp16)) {
      occupy(*l, s.id, static_cast<std::int32_t>(s.table.size()), 1);
      s.table.push_back(*l);
      ++s.tokens;
      return true;
    }
    const bool self = running_.back().id == s.id;
    preempt_youngest();
    if (self) return false;
  }
}

void ScriptedEngine::relocate(loc from, loc to) {
  block_slot moved = slot_at(from);
  count_in_use(frames_[from.frame].tier, -1);
  clear_slot(from);
  slot_at(to) = moved;
  count_in_use(frames_[to.frame].tier, +1);
  for (sequence& s : running_) std::replace(s.table.begin(), s.table.end(), from, to);
  for (prefix& p : prefixes_) std::replace(p.blocks.begin(), p.blocks.end(), from, to);
}

// Cold blocks (full, outside the hot tail) stored less compactly than the level are
// re-quantized, at most migration_batch per step; precision once lost stays lost.
void ScriptedEngine::migrate(precision target) {
  if (target == precision::fp16) return;
  std::uint32_t budget = options_.migration_batch;
  for (std::size_t si = 0; si < running_.size(); ++si) {
    const std::uint32_t full = running_[si].tokens / options_.block_size;
    const std::uint32_t cold = full > options_.tail_blocks ? full - options_.tail_blocks : 0;
    for (std::uint32_t i = 0; i < cold && i < running_[si].table.size(); ++i) {
      const loc from = running_[si].table[i];
      if (ordinal(frames_[from.frame].tier) >= ordinal(target)) continue;
      const auto to = alloc(target);
      if (!to) return;
      relocate(from, *to);
      if (--budget == 0) return;
    }
  }
}

// --- stepping ----------------------------------------------------------------------------

void ScriptedEngine::step() {
  const double t = sim_time_;
  const double target = targetPressure(t);

  // Arrivals: Poisson, busier while the script wants more pressure.
  const double rate = 1.0 + 5.0 * target;
  while (next_arrival_ <= t) {
    if (waiting_.size() < options_.max_waiting) waiting_.push_back(make_request());
    next_arrival_ += -std::log(1 - uniform01()) / rate;
  }

  // The script: when pressure is well above the curve, the oldest requests end early.
  while (running_.size() > 1 && pressure() > target + 0.04) {
    release(running_.front(), true);
    running_.erase(running_.begin());
    ++finished_;
  }

  // Admission, FCFS, while the projected pressure stays under the curve.
  std::uint32_t prefilled = 0;
  const std::uint32_t watermark = std::max(1u, options_.frames / 100);
  while (!waiting_.empty() && running_.size() < options_.max_running) {
    const request& r = waiting_.front();
    const std::uint64_t blocks = (r.prompt + options_.block_size - 1) / options_.block_size;
    const double projected =
        pressure() + static_cast<double>(blocks * options_.frame_bytes) / static_cast<double>(budget_bytes());
    if (projected > target || free_frames_.size() < blocks + watermark) break;
    const request admitted = r;
    waiting_.pop_front();
    if (!admit(admitted)) {
      waiting_.push_front(admitted);
      break;
    }
    prefilled += admitted.prompt;
  }

  // Decode one token per running sequence (admitted ones start next step).
  std::uint32_t decoded = 0;
  for (std::size_t i = 0; i < running_.size();) {
    sequence& s = running_[i];
    if (s.prefilled_this_step) {
      s.prefilled_this_step = false;
      ++i;
      continue;
    }
    if (!decode(s)) continue;  // preempted itself: it was the last one
    ++decoded;
    if (s.tokens >= s.req.prompt + s.req.output) {
      release(s, true);
      running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
      ++finished_;
      continue;
    }
    ++i;
  }

  sim_time_ += options_.step_seconds;
  ++step_;
  const double p = pressure();
  (void)policy_->observe(p);
  record_metrics(decoded, prefilled);
  migrate(policy_->level());
}

void ScriptedEngine::record_metrics(std::uint32_t decoded, std::uint32_t prefilled) {
  step_metrics m;
  m.step = step_ - 1;  // index of the step just run; step_ counts the steps run
  m.sim_time_s = sim_time_;
  m.kv_cache_usage_perc = pressure();
  m.pressure_ewma = policy_->ewma();
  m.level = policy_->level();
  for (precision p : all_precisions) {
    const auto i = static_cast<std::size_t>(ordinal(p));
    m.bytes_per_level[i] =
        in_use_blocks_[i] * options_.frame_bytes / static_cast<std::uint64_t>(slots_per_frame(p));
    if (in_use_blocks_[i] > 0) m.quant_rel_rmse[i] = measured_error_[i];
  }
  m.scale_bytes = scale_bytes();
  m.free_bytes = budget_bytes() - payload_bytes() - m.scale_bytes;
  m.num_requests_running = static_cast<std::uint32_t>(running_.size());
  m.num_requests_waiting = static_cast<std::uint32_t>(waiting_.size());
  m.num_preemptions_total = preemptions_;
  m.level_transitions_total = policy_->upgrades() + policy_->downgrades();
  m.prefix_cache_hits = hits_;
  m.prefix_cache_queries = queries_;
  m.decode_tokens = decoded;
  m.prefill_tokens = prefilled;
  m.requests_finished_total = finished_;
  last_ = m;
}

engine_snapshot ScriptedEngine::snapshot() const {
  engine_snapshot s;
  s.step = step_;
  s.sim_time_s = sim_time_;
  s.latest = last_;
  s.frames.block_size = options_.block_size;
  s.frames.frames = frames_;
  s.frames.frame_bytes = options_.frame_bytes;
  s.frames.scale_bytes = scale_bytes();
  s.frames.scale_reserved_frames =
      static_cast<std::uint32_t>((scale_bytes() + options_.frame_bytes - 1) / options_.frame_bytes);
  s.sequences.reserve(running_.size());
  for (const sequence& q : running_) {
    sequence_summary sum;
    sum.id = q.id;
    sum.request_id = q.req.id;
    sum.phase = q.tokens > q.req.prompt ? sequence_phase::decode : sequence_phase::prefill;
    sum.prompt_tokens = q.req.prompt;
    sum.output_tokens = q.req.output;
    sum.tokens = q.tokens;
    sum.block_table.reserve(q.table.size());
    for (const loc& l : q.table) {
      const frame_info& f = frames_[l.frame];
      sum.block_table.push_back({l.frame, l.slot, f.tier, f.slots[l.slot].refcount > 1});
    }
    s.sequences.push_back(std::move(sum));
  }
  s.policy = policy_->config();
  s.policy_now = policy_->state();
  s.budget_bytes = budget_bytes();
  return s;
}

}  // namespace kvscope::ui
