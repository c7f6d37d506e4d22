#pragma once
// Implements kv_cache_manager (sched/kv_cache_manager.hpp) over the paged cache: the two tiers
// and the prefix cache. A new block is allocated at the level the policy family asks for it at
// the new length (policy/block_level.hpp; for the ewma family: blocks wholly older than the hot
// tail at the current cold level, the rest at fp16). Full blocks are registered under a chained
// content hash (from the request's prefix hashes where it has them, else unique to the request
// so that a preempted request finds its own blocks again); freed full blocks wait in an LRU and
// are evicted, oldest first, when an allocation would otherwise fail.
#include <algorithm>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "memory/paged_cache.hpp"
#include "sched/id_window.hpp"
#include "sched/kv_cache_manager.hpp"
#include "sched/prefix_cache.hpp"

namespace kvscope {

// Queries and hits count the lookups of admissions that succeeded: a request whose lookup was
// given back for lack of room (end_sequence before any allocate_slots succeeded) is counted
// once, when it is admitted, not on every step it waited at the head of the queue.
struct prefix_cache_stats {
  std::uint64_t queries = 0;    // prompt tokens looked up (vLLM's prefix_cache_queries)
  std::uint64_t hits = 0;       // of which found in the cache (vLLM's prefix_cache_hits)
  std::uint64_t evictions = 0;  // cached blocks evicted to make room
};

class block_manager final : public kv_cache_manager {
 public:
  // `cache` must outlive this object. Prefix caching needs the sliding window off.
  block_manager(paged_cache& cache, bool prefix_caching);

  std::uint32_t begin_sequence(sequence_id seq, const request& r,
                               std::uint32_t prompt_tokens) override;
  std::uint32_t begin_sequence_afresh(sequence_id seq, const request& r,
                                      std::uint32_t prompt_tokens) override;
  bool allocate_slots(sequence_id seq, std::uint32_t total_tokens) override;
  std::uint32_t quiet_tokens(sequence_id seq) const override;
  sequence_id slot(sequence_id seq) const override { return cache_id(seq); }
  void end_sequence(sequence_id seq) override;
  void finish_sequence(sequence_id seq) override;
  bool make_room_for(std::uint32_t tokens, std::uint32_t reserve_frames, eviction how) override;
  bool could_ever_fit(std::uint32_t tokens, std::uint32_t reserve_frames) const override;
  std::uint32_t total_frames() const override { return cache_.pool().frame_count(); }

  // New cold blocks are allocated at `level` from now on (the ewma family's controller level).
  void set_cold_level(precision level) noexcept { cold_level_ = level; }
  // The family that places new blocks from now on (ewma by default).
  void set_policy(const policy_config& policy) noexcept { policy_ = policy; }
  // The level cold blocks are guaranteed to reach (the policy's min_level): could_ever_fit
  // counts on no more compaction than that, so a request it admits can always complete.
  void set_guaranteed_level(precision level) noexcept { guaranteed_level_ = level; }

  // The paged cache's id for a scheduler sequence; no_sequence when it has none.
  sequence_id cache_id(sequence_id seq) const {
    return seq < 0 ? no_sequence : cache_of_.get(seq);
  }
  // The synthetic data stream of a scheduler sequence (data mode; equal for shared content).
  std::uint64_t stream(sequence_id seq) const;
  const prefix_cache_stats& prefix_stats() const noexcept { return stats_; }

 private:
  struct tracked {
    sequence_id cache_id = no_sequence;
    std::uint64_t request_id = 0;
    std::uint32_t prompt_tokens = 0;
    std::uint32_t prefix_block_size = 0;
    std::vector<std::uint64_t> prefix_hashes;
    std::uint64_t stream = 0;
    std::uint32_t registered_blocks = 0;  // blocks [0, n) were offered to the prefix cache
    std::uint32_t blocks = 0;             // capacity in blocks: only this class changes it
    bool hold_unique = false;             // unique blocks are held, not indexed (prefix_cache::hold)
    // begin_sequence's lookup, counted in stats_ once an allocate_slots succeeds (admitted).
    std::uint32_t lookup_queries = 0;
    std::uint32_t lookup_hits = 0;
  };

  // begin_sequence, sharing cached prefix blocks when `look_up`.
  std::uint32_t begin(sequence_id seq, const request& r, std::uint32_t prompt_tokens, bool look_up);
  // The tracked state of a scheduler sequence. Precondition: begin_sequence(seq) ran.
  tracked& at(sequence_id seq);
  const tracked& at(sequence_id seq) const;

  // The content hash of block `index`.
  std::uint64_t block_hash(const tracked& t, std::uint32_t index) const;
  // The first block index whose block_hash(t, index) is unique to the request (past its prefix
  // hashes); every later one is unique too.
  std::uint64_t first_unique_block(const tracked& t) const;
  // Whether blocks that fill up may be registered later (quiet_tokens): all of them are held.
  bool registration_can_wait(const tracked& t) const;
  void end(sequence_id seq, bool finished);
  bool evict_one();
  // Offers blocks that filled up to the prefix cache; the check for "none did" stays inline, as
  // it is the answer on every token but one in block_size.
  void register_full_blocks(tracked& t, std::uint32_t tokens) {
    if (prefix_caching_ && std::min(tokens / cache_.block_size(), t.blocks) > t.registered_blocks) {
      register_new_full_blocks(t, tokens);
    }
  }
  void register_new_full_blocks(tracked& t, std::uint32_t tokens);
  // The sequence was admitted: its lookup counts now (once; later calls add nothing).
  void count_lookup(tracked& t) noexcept {
    if (t.lookup_queries == 0) return;
    stats_.queries += t.lookup_queries;
    stats_.hits += t.lookup_hits;
    t.lookup_queries = t.lookup_hits = 0;
  }
  std::uint64_t frames_for(std::uint32_t tokens, precision cold) const;
  // frames_for under the policy family; `ewma_level` is the cold level the ewma family assumes.
  std::uint64_t frames_needed(std::uint32_t tokens, precision ewma_level) const;

  paged_cache& cache_;
  prefix_cache prefix_;
  bool prefix_caching_;
  precision cold_level_ = precision::fp16;
  policy_config policy_;
  precision guaranteed_level_ = precision::fp16;
  // Scheduler ids grow without bound, the paged cache's are small and reused: a scheduler id
  // maps to its cache id over the window of ids still live, and the state lives at the cache
  // id. Two array reads instead of a hash lookup on every call of the per-token path.
  id_window cache_of_;
  std::vector<tracked> tracked_;       // by cache id; cache_id == no_sequence when unused
  prefix_cache_stats stats_;
  // Requests that ended without finishing (preempted, or admitted and given back) and not yet
  // finished: they may come back, so their unique blocks are findable.
  std::unordered_set<std::uint64_t> came_back_;
  std::vector<block_id> released_;  // scratch for end_sequence
  std::vector<block_id> table_copy_;  // scratch for end_sequence
};

}  // namespace kvscope
