#include "sched/block_manager.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <utility>

namespace kvscope {
namespace {

constexpr std::uint64_t unique_salt = 0x6b7673636f706521ull;  // "kvscope!"

}  // namespace

block_manager::block_manager(paged_cache& cache, bool prefix_caching)
    : cache_(cache), prefix_caching_(prefix_caching && cache.config().max_tokens == 0) {}

std::uint64_t block_manager::first_unique_block(const tracked& t) const {
  // Block i is named by the request's prefix hashes while its last token, (i + 1) x bs - 1,
  // is inside the prompt and inside the hashed blocks: below min(prompt, hashes x their size).
  const std::uint64_t named =
      t.prefix_block_size == 0
          ? 0
          : std::min<std::uint64_t>(t.prompt_tokens, std::uint64_t{t.prefix_block_size} * t.prefix_hashes.size());
  const std::uint64_t bs = cache_.block_size();
  return (named + bs) / bs - 1;  // the first i with (i + 1) x bs - 1 >= named
}

std::uint64_t block_manager::block_hash(const tracked& t, std::uint32_t index) const {
  const std::uint64_t bs = cache_.block_size();
  const std::uint64_t last_token = (index + 1) * bs - 1;
  if (t.prefix_block_size > 0 && last_token < t.prompt_tokens) {
    const std::uint64_t j = last_token / t.prefix_block_size;
    // prefix_hashes[j] names the content of tokens [0, (j+1)·B): equal ids, equal blocks.
    if (j < t.prefix_hashes.size()) return chain_hash(t.prefix_hashes[j], index);
  }
  return chain_hash(chain_hash(unique_salt, t.request_id), index);
}

block_manager::tracked& block_manager::at(sequence_id seq) {
  return const_cast<tracked&>(std::as_const(*this).at(seq));
}

const block_manager::tracked& block_manager::at(sequence_id seq) const {
  assert(seq >= 0);
  const sequence_id cid = cache_of_.get(seq);
  assert(cid != no_sequence);
  return tracked_[static_cast<std::size_t>(cid)];
}

std::uint64_t block_manager::stream(sequence_id seq) const {
  const sequence_id cid = cache_id(seq);
  return cid == no_sequence ? 0 : tracked_[static_cast<std::size_t>(cid)].stream;
}

std::uint32_t block_manager::begin_sequence(sequence_id seq, const request& r,
                                             std::uint32_t prompt_tokens) {
  return begin(seq, r, prompt_tokens, prefix_caching_);
}

std::uint32_t block_manager::begin_sequence_afresh(sequence_id seq, const request& r,
                                                    std::uint32_t prompt_tokens) {
  return begin(seq, r, prompt_tokens, false);
}

std::uint32_t block_manager::begin(sequence_id seq, const request& r, std::uint32_t prompt_tokens,
                                   bool look_up) {
  assert(cache_id(seq) == no_sequence);
  tracked t;
  t.cache_id = cache_.create_sequence();
  t.request_id = r.id;
  t.prompt_tokens = r.prompt_tokens;
  t.prefix_block_size = r.prefix_block_size;
  t.prefix_hashes = r.prefix_hashes;
  // Sequences sharing any block share their first prefix hash: one stream makes their shared
  // synthetic data identical, so quality is measured against the right originals.
  t.stream = r.prefix_hashes.empty() ? r.id : r.prefix_hashes.front();
  // A request that ended before and came back may find stale blocks of its own under its unique
  // hashes: it registers every block at once, so duplicates are refused as they always were.
  t.hold_unique = !came_back_.contains(r.id);

  std::uint32_t hit_blocks = 0;
  if (look_up) {
    const std::uint32_t bs = cache_.block_size();
    // Only whole blocks, and never the last prompt token: it must be computed to sample.
    while ((hit_blocks + 1) * bs < prompt_tokens) {
      const block_id b = prefix_.find(block_hash(t, hit_blocks));
      if (b == no_block) break;
      prefix_.revive(b);
      assert_ok(cache_.append_shared(t.cache_id, b));
      ++hit_blocks;
    }
    t.registered_blocks = hit_blocks;
    t.lookup_queries = prompt_tokens;
    t.lookup_hits = hit_blocks * bs;
  }
  const std::uint32_t hit_tokens = hit_blocks * cache_.block_size();
  if (hit_tokens > 0) assert_ok(cache_.advance(t.cache_id, hit_tokens));
  t.blocks = hit_blocks;
  const auto slot = static_cast<std::size_t>(t.cache_id);
  cache_of_.set(seq, t.cache_id);
  if (slot >= tracked_.size()) tracked_.resize(slot + 1);
  tracked_[slot] = std::move(t);
  return hit_tokens;
}

bool block_manager::evict_one() {
  const block_id b = prefix_.pop_lru();
  if (b == no_block) return false;
  cache_.evict(b);
  ++stats_.evictions;
  return true;
}

void block_manager::register_new_full_blocks(tracked& t, std::uint32_t tokens) {
  // Prefix caching runs without a sliding window, so the table holds every block from 0.
  const std::uint32_t full = std::min(tokens / cache_.block_size(), t.blocks);
  const auto table = *cache_.block_table(t.cache_id);
  // Only this request could look a unique block up, and only after a preemption: it is held
  // unfindable until then (end_sequence hashes it), and never hashed if the request finishes.
  const std::uint64_t held_from = t.hold_unique ? first_unique_block(t) : UINT64_MAX;
  std::uint32_t i = t.registered_blocks;
  for (; i < full; ++i) {
    if (i >= held_from) {
      (void)prefix_.hold(table[i]);
    } else {
      (void)prefix_.insert(block_hash(t, i), table[i]);
    }
  }
  t.registered_blocks = i;
}

bool block_manager::allocate_slots(sequence_id seq, std::uint32_t total_tokens) {
  tracked& t = at(seq);
  const std::uint32_t bs = cache_.block_size();
  // t.blocks equals capacity / block size: the window drops blocks from the front only.
  assert(t.blocks == *cache_.capacity(t.cache_id) / bs);
  const std::uint32_t have = t.blocks;
  const std::uint32_t need = (total_tokens + bs - 1) / bs;
  if (need <= have) {  // the common case: the last block has room for this step's tokens
    count_lookup(t);
    register_full_blocks(t, total_tokens);
    return true;
  }
  // Born at the level the family asks for at the new length (ewma: wholly older than the hot
  // tail, cold; the rest fp16), so that migration has nothing to do for it yet.
  const level_spans spans =
      cold_spans(policy_, cold_level_, {total_tokens, bs, cache_.config().tail_tokens});
  // Block by block, evicting one cached block whenever the next does not fit; in runs of blocks
  // of one level, which the pool places in one pass.
  std::uint32_t i = have;
  while (i < need) {
    precision tier = precision::fp16;
    std::uint32_t run_end = need;
    for (std::uint32_t k = 0; k < spans.count; ++k) {
      const level_span& span = spans.span[k];
      if (i >= span.begin && i < span.end) tier = span.level;
      if (span.begin > i) run_end = std::min(run_end, span.begin);
      if (span.end > i) run_end = std::min(run_end, span.end);
    }
    i += *cache_.append_blocks(t.cache_id, tier, run_end - i);
    if (i < run_end && !evict_one()) {
      for (std::uint32_t undo = have; undo < i; ++undo) assert_ok(cache_.pop_block(t.cache_id));
      return false;
    }
  }
  t.blocks = need;
  count_lookup(t);
  register_full_blocks(t, total_tokens);
  return true;
}

std::uint32_t block_manager::quiet_tokens(sequence_id seq) const {
  // allocate_slots does nothing while the blocks hold the tokens (need <= have) and no block
  // fills up to be registered: min(tokens / bs, blocks) > registered needs tokens >= (registered
  // + 1) x bs once tokens <= blocks x bs. A block only this request could look up is held, not
  // indexed, and nothing asks whether it is held before the sequence ends: its registration
  // waits for the next allocation or for end(), which catches up first. That halves the calls
  // on the decode path (one a block instead of two: the block fills, then the next begins).
  const tracked& t = at(seq);
  const std::uint64_t bs = cache_.block_size();
  std::uint64_t quiet = std::uint64_t{t.blocks} * bs;
  if (prefix_caching_ && !registration_can_wait(t)) {
    quiet = std::min(quiet, (std::uint64_t{t.registered_blocks} + 1) * bs - 1);
  }
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(quiet, UINT32_MAX));
}

bool block_manager::registration_can_wait(const tracked& t) const {
  // Every block from registered_blocks on is held: its hash is the request's own.
  return t.hold_unique && t.registered_blocks >= first_unique_block(t);
}

void block_manager::end_sequence(sequence_id seq) { end(seq, false); }

void block_manager::finish_sequence(sequence_id seq) { end(seq, true); }

void block_manager::end(sequence_id seq, bool finished) {
  tracked& t = at(seq);
  const sequence_id cid = t.cache_id;
  // The blocks that filled since the last allocation (quiet_tokens let their registration wait).
  register_full_blocks(t, *cache_.length(cid));
  const auto table = *cache_.block_table(cid);
  table_copy_.assign(table.begin(), table.end());
  if (finished) {
    came_back_.erase(t.request_id);
  } else {
    // It may come back and look its blocks up: make its held ones findable now. A duplicate
    // cannot be refused here (its first admission), so this is what registering them at once did.
    for (std::uint32_t i = 0; i < t.registered_blocks && i < table_copy_.size(); ++i) {
      if (prefix_.is_held(table_copy_[i])) (void)prefix_.make_findable(table_copy_[i], block_hash(t, i));
    }
    came_back_.insert(t.request_id);
  }
  released_.clear();
  assert_ok(cache_.drop_sequence(
      cid, prefix_caching_ ? retention::cache_full_blocks : retention::free_all, &released_));
  for (const block_id b : released_) {
    // A full block whose content another block already holds is unreachable: free it now.
    if (prefix_.contains(b)) {
      prefix_.push_cached(b);
    } else {
      cache_.evict(b);
    }
  }
  if (prefix_caching_) {
    for (const block_id b : table_copy_) {
      if (!cache_.pool().is_live(b)) prefix_.erase(b);  // freed outright (partial block)
    }
  }
  t = tracked{};
  cache_of_.clear(seq);
}

std::uint64_t block_manager::frames_for(std::uint32_t tokens, precision cold) const {
  const std::uint64_t bs = cache_.block_size();
  const std::uint64_t blocks = (tokens + bs - 1) / bs;
  const std::uint64_t hot = std::min<std::uint64_t>(blocks, (cache_.config().tail_tokens + bs - 1) / bs + 1);
  const std::uint64_t cold_blocks = blocks - hot;
  const auto& layout = cache_.pool().layout(cold);
  const std::uint64_t slots = layout.slots_per_frame;
  const std::uint64_t scale_frames =
      (cold_blocks * layout.scale_bytes + cache_.pool().frame_bytes() - 1) / cache_.pool().frame_bytes();
  return hot + (cold_blocks + slots - 1) / slots + scale_frames;
}

std::uint64_t block_manager::frames_needed(std::uint32_t tokens, precision ewma_level) const {
  if (policy_.family == policy_family::ewma) return frames_for(tokens, ewma_level);
  if (policy_.family == policy_family::fixed) return frames_for(tokens, policy_.fixed_level);
  // age, sinks_recent: each span's blocks at its level at the full length (the most a sequence
  // holds on its way there, as each block only gets more compact), plus one fp16 block for the
  // block a step's migration has not reached yet.
  const auto& pool = cache_.pool();
  const std::uint64_t bs = cache_.block_size();
  const std::uint64_t blocks = (tokens + bs - 1) / bs;
  const level_spans spans = cold_spans(policy_, precision::fp16, {tokens, cache_.block_size(),
                                                                  cache_.config().tail_tokens});
  std::uint64_t frames = 1, compact = 0, scale_bytes = 0;
  for (std::uint32_t k = 0; k < spans.count; ++k) {
    const auto& span = spans.span[k];
    const std::uint64_t n = std::min<std::uint64_t>(span.end, blocks) - std::min<std::uint64_t>(span.begin, blocks);
    const auto& layout = pool.layout(span.level);
    compact += n;
    frames += (n + layout.slots_per_frame - 1) / layout.slots_per_frame;
    scale_bytes += n * layout.scale_bytes;
  }
  return frames + (blocks - compact) + (scale_bytes + pool.frame_bytes() - 1) / pool.frame_bytes();
}

bool block_manager::make_room_for(std::uint32_t tokens, std::uint32_t reserve_frames, eviction how) {
  const auto& pool = cache_.pool();
  // With a sliding window a sequence never holds more than the window and one block, as
  // could_ever_fit counts: asking room for a longer prompt at once would wait for ever.
  const std::uint32_t window = cache_.config().max_tokens;
  if (window > 0) tokens = std::min(tokens, window + cache_.block_size());
  const std::uint64_t need = frames_needed(tokens, cold_level_) + reserve_frames;
  if (pool.free_frames() >= need) return true;
  // What evicting every cached block could give back: their frames (rounded up) and the frames
  // their scales reserve. Below that, evicting would only throw the cache away. This is an
  // estimate, not a ceiling: a split tier's cached blocks need not be packed (194 q4 blocks
  // were seen in 52 frames, not 49). When others run, waiting is safe, as they end and free
  // frames; alone, the head would wait for ever, so it evicts as far as needed.
  const auto usage = pool.usage();
  std::uint64_t upper = 1, cached_scales = 0;
  for (precision p : all_precisions) {
    const auto& tier = usage.tiers[ordinal(p)];
    const std::uint64_t slots = pool.layout(p).slots_per_frame;
    upper += (tier.cached_blocks + slots - 1) / slots;
    cached_scales += tier.cached_blocks * pool.layout(p).scale_bytes;
  }
  upper += (cached_scales + pool.frame_bytes() - 1) / pool.frame_bytes();
  if (how == eviction::when_estimated_enough && pool.free_frames() + upper < need) return false;
  while (pool.free_frames() < need && evict_one()) {
  }
  return pool.free_frames() >= need;
}

bool block_manager::could_ever_fit(std::uint32_t tokens, std::uint32_t reserve_frames) const {
  const std::uint32_t window = cache_.config().max_tokens;
  if (window > 0) tokens = std::min(tokens, window + cache_.block_size());
  return frames_needed(tokens, guaranteed_level_) + reserve_frames <= cache_.pool().frame_count();
}

}  // namespace kvscope
