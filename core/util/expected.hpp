#pragma once
// A minimal std::expected stand-in (C++20 has none): a value or an error, never both.
// Used for expected failures on hot paths; exceptions are kept for boundaries (CLI, files, UI).
#include <cassert>
#include <utility>
#include <variant>

namespace kvscope {

template <class E>
struct unexpected {
  E error;
};
template <class E>
unexpected(E) -> unexpected<E>;

template <class T, class E>
class [[nodiscard]] expected {
 public:
  expected(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  expected(unexpected<E> u) : state_(std::in_place_index<1>, std::move(u.error)) {}

  bool has_value() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  // Precondition: has_value().
  T& value() & { assert(has_value()); return std::get<0>(state_); }
  const T& value() const& { assert(has_value()); return std::get<0>(state_); }
  T&& value() && { assert(has_value()); return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // Precondition: !has_value().
  const E& error() const& { assert(!has_value()); return std::get<1>(state_); }
  E&& error() && { assert(!has_value()); return std::get<1>(std::move(state_)); }

 private:
  std::variant<T, E> state_;
};

// expected<void, E>: success or an error.
template <class E>
class [[nodiscard]] expected<void, E> {
 public:
  expected() = default;
  expected(unexpected<E> u) : error_(std::move(u.error)), failed_(true) {}
  bool has_value() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return has_value(); }
  const E& error() const& { assert(failed_); return error_; }

 private:
  E error_{};
  bool failed_ = false;
};

// For a call whose failure would be a caller bug (the invariants rule it out): checked in
// debug builds, and never silently dropped by accident — the call site says so.
template <class T, class E>
constexpr void assert_ok(const expected<T, E>& result) noexcept {
  assert(result.has_value());
  (void)result;
}

}  // namespace kvscope
