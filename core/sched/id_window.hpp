#pragma once
// A map from ids handed out in increasing order to the cache ids they hold, keeping only the
// window from the oldest id still set: the scheduler numbers every request it ever sees, but only
// those waiting or running hold a cache sequence, so a week of requests needs the memory of the
// few minutes the oldest live one has waited. Reads are one array index, as a plain vector's.
#include <cassert>
#include <cstddef>
#include <vector>

#include "util/ids.hpp"

namespace kvscope {

class id_window {
 public:
  // The value set for `id`; no_sequence when none is (or it was cleared).
  sequence_id get(sequence_id id) const noexcept {
    if (id < first_) return no_sequence;
    const auto i = static_cast<std::size_t>(id - first_);
    return i < values_.size() ? values_[i] : no_sequence;
  }

  // Sets `id` to `value`. Precondition: id >= 0, value != no_sequence.
  void set(sequence_id id, sequence_id value) {
    assert(id >= 0 && value != no_sequence);
    if (id < first_) {  // an old id back after the window moved past it (a preempted request)
      values_.insert(values_.begin(), static_cast<std::size_t>(first_ - id), no_sequence);
      live_from_ = 0;
      first_ = id;
    }
    const auto i = static_cast<std::size_t>(id - first_);
    if (i >= values_.size()) values_.resize(i + 1, no_sequence);
    values_[i] = value;
    if (i < live_from_) live_from_ = i;
  }

  // Unsets `id`, and lets go of the entries before the oldest id still set once they are at
  // least half the window (amortized O(1)).
  void clear(sequence_id id) noexcept {
    if (id < first_) return;
    const auto i = static_cast<std::size_t>(id - first_);
    if (i >= values_.size()) return;
    values_[i] = no_sequence;
    while (live_from_ < values_.size() && values_[live_from_] == no_sequence) ++live_from_;
    if (live_from_ >= 64 && 2 * live_from_ >= values_.size()) {
      values_.erase(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(live_from_));
      first_ += static_cast<sequence_id>(live_from_);
      live_from_ = 0;
    }
  }

  // Entries held (for tests): the window's length.
  std::size_t window() const noexcept { return values_.size(); }

 private:
  std::vector<sequence_id> values_;  // values_[i] belongs to id first_ + i
  sequence_id first_ = 0;
  std::size_t live_from_ = 0;  // no entry before this index is set
};

}  // namespace kvscope
