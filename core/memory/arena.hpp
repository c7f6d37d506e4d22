#pragma once
// The pool's big payload and scale buffers: uninitialized, 2 MiB aligned and, on Linux, marked
// for transparent huge pages. The OS commits memory only as it is first written, so an unused
// budget costs nothing. Huge pages matter: streaming 64 MiB of fp16 into f32 took ~30 ns per
// 512 B with 4 KiB pages and ~19 ns with 2 MiB pages on the 2-core AVX2 test machine (the
// hardware prefetcher stops at every 4 KiB page and the TLB runs out).
#include <cstddef>
#include <memory>

namespace kvscope {

struct arena_deleter {
  void operator()(void* p) const noexcept;
};

template <class T>
using arena_ptr = std::unique_ptr<T[], arena_deleter>;

// At least `bytes` of uninitialized memory (rounded up to 2 MiB). Throws std::bad_alloc.
void* allocate_arena(std::size_t bytes);

}  // namespace kvscope
