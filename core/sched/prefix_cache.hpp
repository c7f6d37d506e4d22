#pragma once
// vLLM's automatic prefix caching, the bookkeeping half: which block holds which content hash,
// and the LRU queue of cached blocks (refcount 0, kept for hits) evicted on demand. The pool
// owns the blocks; this class only remembers them.
#include <cstdint>
#include <vector>

#include "memory/frame_map.hpp"
#include "sched/block_index.hpp"

namespace kvscope {

// Chains a block's content with its parent's hash, as vLLM hashes full blocks.
std::uint64_t chain_hash(std::uint64_t parent, std::uint64_t content) noexcept;

class prefix_cache {
 public:
  // The block registered for `hash`, or no_block.
  block_id find(std::uint64_t hash) const;
  // Registers full block `b` under `hash`; false (nothing changes) when the hash already names a
  // block or `b` already has a hash.
  bool insert(std::uint64_t hash, block_id b);
  // Registers full block `b` without making it findable: for a block only its own request could
  // ever look up (a hash unique to the request), until that request is preempted and may come
  // back (make_findable gives the hash then). Saves hashing, an index insert and an erase for
  // every such block of a request that simply finishes. False (nothing changes) when `b` is
  // already registered.
  bool hold(block_id b);
  // Makes a held block findable under `hash`; false when another block already holds the hash
  // (then `b` is unregistered, as insert() would have refused it).
  bool make_findable(block_id b, std::uint64_t hash);
  bool is_held(block_id b) const { return b < nodes_.size() && nodes_[b].registered && !nodes_[b].indexed; }
  bool contains(block_id b) const { return b < nodes_.size() && nodes_[b].registered; }

  // `b` (registered) reached refcount 0 and stays cached: it joins the most recent end.
  void push_cached(block_id b);
  // A cached block was hit and is referenced again: it leaves the queue.
  void revive(block_id b);
  // The least recently cached block, unregistered; no_block when none is cached.
  block_id pop_lru();
  // Unregisters `b` wherever it is (freed outright, e.g. a duplicate of a registered hash).
  void erase(block_id b);

  std::size_t cached_blocks() const noexcept { return cached_; }
  // Blocks findable by hash (held blocks are not).
  std::size_t findable_blocks() const noexcept { return block_of_.size(); }
  void clear();

 private:
  // Per block id (ids are dense pool record indices): its hash and its place in the LRU, an
  // intrusive doubly linked list, so the hot path does one hash-map lookup at most.
  struct node {
    std::uint64_t hash = 0;
    block_id prev = no_block;
    block_id next = no_block;
    bool registered = false;
    bool indexed = false;  // registered and in block_of_ (a held block is not)
    bool queued = false;
  };
  // Inline: every block a sequence fills or gives back passes here (1.6 M times on the Azure
  // hour); only growing the table is out of line.
  node& at(block_id b) {
    if (b >= nodes_.size()) grow_to(b);
    return nodes_[b];
  }
  void grow_to(block_id b);

  block_index block_of_;
  std::vector<node> nodes_;
  block_id head_ = no_block;  // least recently cached
  block_id tail_ = no_block;
  std::size_t cached_ = 0;
};

}  // namespace kvscope
