#include "sched/prefix_cache.hpp"

#include <algorithm>
#include <cassert>

namespace kvscope {

std::uint64_t chain_hash(std::uint64_t parent, std::uint64_t content) noexcept {
  // splitmix64 finalizer over a combination that is not symmetric in its arguments.
  std::uint64_t z = parent * 0x9E3779B97F4A7C15ull + content + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void prefix_cache::grow_to(block_id b) {
  nodes_.resize(std::max<std::size_t>(b + 1, nodes_.size() * 2));
}

block_id prefix_cache::find(std::uint64_t hash) const {
  return block_of_.find(hash);
}

bool prefix_cache::insert(std::uint64_t hash, block_id b) {
  node& n = at(b);
  if (n.registered) return false;
  if (!block_of_.insert(hash, b)) return false;
  n.hash = hash;
  n.registered = true;
  n.indexed = true;
  return true;
}

bool prefix_cache::hold(block_id b) {
  node& n = at(b);
  if (n.registered) return false;
  n.registered = true;
  n.indexed = false;
  return true;
}

bool prefix_cache::make_findable(block_id b, std::uint64_t hash) {
  node& n = at(b);
  assert(n.registered && !n.indexed);
  if (!block_of_.insert(hash, b)) {
    n.registered = false;
    return false;
  }
  n.hash = hash;
  n.indexed = true;
  return true;
}

void prefix_cache::push_cached(block_id b) {
  node& n = at(b);
  assert(n.registered && !n.queued);
  n.prev = tail_;
  n.next = no_block;
  if (tail_ != no_block) {
    nodes_[tail_].next = b;
  } else {
    head_ = b;
  }
  tail_ = b;
  n.queued = true;
  ++cached_;
}

void prefix_cache::revive(block_id b) {
  if (b >= nodes_.size() || !nodes_[b].queued) return;  // live already (shared)
  node& n = nodes_[b];
  (n.prev != no_block ? nodes_[n.prev].next : head_) = n.next;
  (n.next != no_block ? nodes_[n.next].prev : tail_) = n.prev;
  n.queued = false;
  --cached_;
}

block_id prefix_cache::pop_lru() {
  // erase(head_) without its checks: the head is registered and queued, first in the list.
  const block_id b = head_;
  if (b == no_block) return b;
  node& n = nodes_[b];
  head_ = n.next;
  (head_ != no_block ? nodes_[head_].prev : tail_) = no_block;
  n.queued = false;
  --cached_;
  if (n.indexed) block_of_.erase(n.hash);
  n.registered = false;
  n.indexed = false;
  return b;
}

void prefix_cache::erase(block_id b) {
  if (b >= nodes_.size() || !nodes_[b].registered) return;
  revive(b);
  if (nodes_[b].indexed) block_of_.erase(nodes_[b].hash);
  nodes_[b].registered = false;
  nodes_[b].indexed = false;
}

void prefix_cache::clear() {
  block_of_.clear();
  nodes_.clear();
  head_ = tail_ = no_block;
  cached_ = 0;
}

}  // namespace kvscope
