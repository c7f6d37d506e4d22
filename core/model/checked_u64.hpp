#pragma once
// Unsigned 64-bit arithmetic that remembers overflow instead of wrapping (internal to model/).
// Parameter counts multiply config fields read from files; a hostile or mistyped file must give
// an error, never a silently wrapped count.
#include <cstdint>
#include <limits>

namespace kvscope::detail {

class checked_u64 {
 public:
  constexpr checked_u64(std::uint64_t value = 0) noexcept : value_(value) {}  // NOLINT: implicit

  constexpr bool overflowed() const noexcept { return overflowed_; }
  // The value, or the largest uint64 once any step overflowed.
  constexpr std::uint64_t value_or_max() const noexcept {
    return overflowed_ ? std::numeric_limits<std::uint64_t>::max() : value_;
  }

  friend constexpr checked_u64 operator+(checked_u64 a, checked_u64 b) noexcept {
    checked_u64 r;
    r.overflowed_ =
        __builtin_add_overflow(a.value_, b.value_, &r.value_) || a.overflowed_ || b.overflowed_;
    return r;
  }
  friend constexpr checked_u64 operator*(checked_u64 a, checked_u64 b) noexcept {
    checked_u64 r;
    r.overflowed_ =
        __builtin_mul_overflow(a.value_, b.value_, &r.value_) || a.overflowed_ || b.overflowed_;
    return r;
  }
  checked_u64& operator+=(checked_u64 b) noexcept { return *this = *this + b; }

 private:
  std::uint64_t value_ = 0;
  bool overflowed_ = false;
};

}  // namespace kvscope::detail
