#pragma once
// The temporary files atomic writers have open, so that a fatal signal can remove them: a
// handler may call remove_live_temporaries(), which does nothing but unlink(2) on fixed slots
// (async-signal-safe). Registration takes a free slot with one atomic exchange and no lock.
#include <cstddef>

namespace kvscope {

// Slots: more temporaries than this at once are not registered (and so not removed on a signal).
inline constexpr std::size_t temp_registry_slots = 64;

// Registers `path` (a NUL-terminated file name); returns its slot, or -1 if none is free or the
// name is too long.
int register_temporary(const char* path) noexcept;
// Forgets a slot from register_temporary (nothing for -1).
void unregister_temporary(int slot) noexcept;
// Unlinks every registered file. Async-signal-safe; for signal handlers.
void remove_live_temporaries() noexcept;

}  // namespace kvscope
