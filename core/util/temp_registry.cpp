#include "util/temp_registry.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <climits>
#include <cstring>

namespace kvscope {
namespace {

enum slot_state : int { free_slot = 0, filling = 1, live = 2 };

struct slot {
  std::atomic<int> state{free_slot};
  char path[PATH_MAX];
};

std::array<slot, temp_registry_slots> slots;
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler reads the slot states");

}  // namespace

int register_temporary(const char* path) noexcept {
  const std::size_t length = std::strlen(path);
  if (length >= PATH_MAX) return -1;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    int expected = free_slot;
    // `filling` keeps a handler away from a half-copied name.
    if (!slots[i].state.compare_exchange_strong(expected, filling)) continue;
    std::memcpy(slots[i].path, path, length + 1);
    slots[i].state.store(live, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void unregister_temporary(int slot) noexcept {
  if (slot >= 0) slots[static_cast<std::size_t>(slot)].state.store(free_slot, std::memory_order_release);
}

void remove_live_temporaries() noexcept {
  for (auto& s : slots) {
    if (s.state.load(std::memory_order_acquire) == live) ::unlink(s.path);
  }
}

}  // namespace kvscope
