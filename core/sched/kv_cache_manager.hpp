#pragma once
// What the scheduler asks of memory, as vLLM v1's KVCacheManager: reuse cached prefix blocks,
// make room for new tokens (all or nothing), free a sequence. The one place sched/ maps vLLM's
// vocabulary (allocate_slots keeps its name); block_manager implements it over the paged pool
// and the prefix cache, so the scheduler never sees frames, tiers or hashes.
#include <cstdint>

#include "load/request.hpp"
#include "memory/frame_map.hpp"

namespace kvscope {

class kv_cache_manager {
 public:
  virtual ~kv_cache_manager() = default;

  // Registers `seq` for request `r` and shares the longest run of cached full prompt blocks
  // (prefix cache hits). Returns the prompt tokens those blocks cover (a multiple of the block
  // size, and always < prompt tokens so that the last token is computed).
  virtual std::uint32_t begin_sequence(sequence_id seq, const request& r,
                                       std::uint32_t prompt_tokens) = 0;
  // begin_sequence sharing no cached block: every token is computed afresh. For a request that
  // does not fit even alone with its hits, as a cached block keeps the level it was stored at
  // and may hold more memory than the same tokens written now would (returns 0).
  virtual std::uint32_t begin_sequence_afresh(sequence_id seq, const request& r,
                                              std::uint32_t prompt_tokens) {
    return begin_sequence(seq, r, prompt_tokens);
  }

  // Grows `seq` to hold `total_tokens` tokens. All or nothing: false when the pool cannot supply
  // the blocks even after evicting cached ones; the sequence is then unchanged.
  virtual bool allocate_slots(sequence_id seq, std::uint32_t total_tokens) = 0;

  // Tokens `seq` may hold with allocate_slots having nothing to do: until the next
  // allocate_slots, begin_sequence or end_sequence for `seq`, allocate_slots(seq, n) with
  // n <= this returns true and changes nothing a caller can see (at most bookkeeping that the
  // next allocate_slots or end_sequence catches up on), so a caller may skip it (the scheduler
  // does, on all but about one decode token in block_size). 0 promises nothing.
  virtual std::uint32_t quiet_tokens(sequence_id) const { return 0; }

  // The memory's own index of `seq` from begin_sequence until end_sequence (the paged cache's
  // sequence id for block_manager), so that a caller reaching the memory for a running sequence
  // every step need not map the id each time; no_sequence when the memory has none.
  virtual sequence_id slot(sequence_id) const { return no_sequence; }

  // Frees every block of `seq` (full blocks stay cached for prefix hits, LRU, last block first).
  virtual void end_sequence(sequence_id seq) = 0;

  // end_sequence for a request that is done and never comes back (not a preemption): a manager
  // may then skip keeping what only that request could look up again.
  virtual void finish_sequence(sequence_id seq) { end_sequence(seq); }

  // How far make_room_for may go when its estimate says evicting cannot make room.
  enum class eviction {
    when_estimated_enough,  // evict only if the estimate says it can be enough
    as_far_as_needed,       // evict until it fits or nothing is cached (nothing else runs)
  };

  // True when `tokens` more tokens fit while keeping `reserve_frames` frames free (admission),
  // evicting cached blocks (oldest first) as far as that is needed. With when_estimated_enough
  // it evicts nothing when an estimate of what evicting every cached block frees says it would
  // not make room.
  virtual bool make_room_for(std::uint32_t tokens, std::uint32_t reserve_frames, eviction how) = 0;

  // True when `tokens` tokens plus `reserve_frames` free frames fit an otherwise empty pool
  // (else the request is rejected rather than left waiting forever).
  virtual bool could_ever_fit(std::uint32_t tokens, std::uint32_t reserve_frames) const = 0;

  virtual std::uint32_t total_frames() const = 0;
};

}  // namespace kvscope
