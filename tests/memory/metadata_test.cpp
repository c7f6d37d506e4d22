// Pool metadata per block in accounting mode, measured: this binary counts every byte the heap
// hands out (operator new replaced), builds a production-size cache and fills it.
#include <gtest/gtest.h>

#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "memory/paged_cache.hpp"

namespace {
std::atomic<long long> live_bytes{0};
}

void* operator new(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  live_bytes += static_cast<long long>(malloc_usable_size(p));
  return p;
}
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  live_bytes -= static_cast<long long>(malloc_usable_size(p));
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete[](void* p, std::size_t) noexcept { operator delete(p); }

namespace kvscope {
namespace {

struct measured {
  double heap_per_block;  // bytes the heap holds for the cache, per live block
  double reported_per_block;  // metadata_bytes() per live block
};

// llama3-8b, 16 GiB: 8192 frames of 2 MiB. Sequences of `tokens` tokens at `tier` until full.
measured fill(precision tier, std::uint32_t tokens, bool pool_only) {
  const long long start = live_bytes.load();
  auto* cache = new paged_cache({{*find_model_shape("llama3-8b"), 16, 16ull << 30,
                                  payload_mode::accounting, false},
                                 256, 0});
  const std::uint32_t blocks_per_seq = tokens / 16;
  std::uint64_t blocks = 0;
  for (bool room = true; room;) {
    const sequence_id s = cache->create_sequence();
    for (std::uint32_t i = 0; i < blocks_per_seq && room; ++i) {
      room = cache->append_block(s, tier).has_value();
      blocks += room ? 1 : 0;
    }
  }
  const double heap = static_cast<double>(live_bytes.load() - start);
  const double reported =
      static_cast<double>(pool_only ? cache->pool().metadata_bytes() : cache->metadata_bytes());
  std::printf("%s, %u-token sequences: %llu blocks, heap %.1f B/block, reported %s %.1f B/block\n",
              std::string(tag(tier)).c_str(), tokens, static_cast<unsigned long long>(blocks),
              heap / static_cast<double>(blocks), pool_only ? "pool" : "cache",
              reported / static_cast<double>(blocks));
  delete cache;
  return {heap / static_cast<double>(blocks), reported / static_cast<double>(blocks)};
}

TEST(PoolMetadata, AtMost32BytesPerBlockInAccountingMode) {
  for (precision tier : {precision::fp16, precision::q8, precision::q4}) {
    // Whole cache (pool + sequences + block tables) with 2048-token sequences.
    const measured m = fill(tier, 2048, false);
    EXPECT_LE(m.heap_per_block, 32.0) << tag(tier);
    EXPECT_GE(m.reported_per_block * 1.05, m.heap_per_block) << "metadata_bytes() undercounts";
    // The pool alone.
    EXPECT_LE(fill(tier, 2048, true).reported_per_block, 32.0) << tag(tier);
  }
}

}  // namespace
}  // namespace kvscope
