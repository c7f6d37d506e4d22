#include "memory/arena.hpp"

#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace kvscope {

void arena_deleter::operator()(void* p) const noexcept { std::free(p); }

void* allocate_arena(std::size_t bytes) {
  constexpr std::size_t huge_page = std::size_t{2} << 20;
  const std::size_t rounded = (bytes + huge_page - 1) / huge_page * huge_page;
  void* p = std::aligned_alloc(huge_page, rounded == 0 ? huge_page : rounded);
  if (p == nullptr) throw std::bad_alloc();
#if defined(__linux__)
  (void)::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP, plain pages serve
#endif
  return p;
}

}  // namespace kvscope
