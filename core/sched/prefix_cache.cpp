#include "sched/prefix_cache.hpp"

#include <cassert>

namespace kvscope {

std::uint64_t chain_hash(std::uint64_t parent, std::uint64_t content) noexcept {
  // splitmix64 finalizer over a combination that is not symmetric in its arguments.
  std::uint64_t z = parent * 0x9E3779B97F4A7C15ull + content + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

block_id prefix_cache::find(std::uint64_t hash) const {
  const auto it = block_of_.find(hash);
  return it == block_of_.end() ? no_block : it->second;
}

bool prefix_cache::insert(std::uint64_t hash, block_id b) {
  if (block_of_.count(hash) || hash_of_.count(b)) return false;
  block_of_.emplace(hash, b);
  hash_of_.emplace(b, hash);
  return true;
}

void prefix_cache::push_cached(block_id b) {
  assert(hash_of_.count(b) && !lru_pos_.count(b));
  lru_.push_back(b);
  lru_pos_.emplace(b, std::prev(lru_.end()));
}

void prefix_cache::revive(block_id b) {
  const auto it = lru_pos_.find(b);
  if (it == lru_pos_.end()) return;  // live already (shared by a running sequence)
  lru_.erase(it->second);
  lru_pos_.erase(it);
}

block_id prefix_cache::pop_lru() {
  if (lru_.empty()) return no_block;
  const block_id b = lru_.front();
  erase(b);
  return b;
}

void prefix_cache::erase(block_id b) {
  revive(b);
  const auto it = hash_of_.find(b);
  if (it == hash_of_.end()) return;
  block_of_.erase(it->second);
  hash_of_.erase(it);
}

void prefix_cache::clear() {
  block_of_.clear();
  hash_of_.clear();
  lru_.clear();
  lru_pos_.clear();
}

}  // namespace kvscope
