#pragma once
// The EWMA pressure controller with hysteresis, step for step as the reference runtime's
// (docs/policy.md; the runtime: its section "The reference runtime").
#include <atomic>
#include <cstdint>
#include <string>

#include "quant/level.hpp"
#include "policy/policy_config.hpp"
#include "util/expected.hpp"

namespace kvscope {

struct policy_state {
  precision level = precision::fp16;
  double ewma = 0.0;
  std::uint64_t samples = 0;
  std::uint64_t upgrades = 0;    // level ordinal rose (more compact)
  std::uint64_t downgrades = 0;  // level ordinal fell

  friend bool operator==(const policy_state&, const policy_state&) = default;
};

enum class observe_error : std::uint8_t { non_finite_pressure };

// Thread safety: `observe` and the getters may run from any number of threads at once; they are
// lock-free (the EWMA is a compare-and-swap loop, the level another). `reset` and `reconfigure`
// need exclusive access — the engine calls them between steps, never during one. So does
// `observe_alone`, which does what `observe` does without the compare-and-swaps.
class policy_controller {
 public:
  // Throws std::invalid_argument with invalid_policy_message(reason) for an invalid config:
  // constructing from unchecked input is a boundary, use validate() first to get a value.
  explicit policy_controller(const policy_config& config = {});

  policy_controller(const policy_controller&) = delete;
  policy_controller& operator=(const policy_controller&) = delete;

  // Feeds one pressure sample (clamped to [0, 1]) and returns the level after it.
  // A NaN or infinite sample is rejected and leaves every piece of state unchanged.
  expected<precision, observe_error> observe(double pressure) noexcept;
  // observe() for a caller that is the only one feeding samples (the engine, between steps):
  // the same state afterwards, written with plain atomic stores instead of the lock-prefixed
  // compare-and-swaps that concurrent observers need. Getters may still run from other threads.
  expected<precision, observe_error> observe_alone(double pressure) noexcept;

  // Back to the initial state: ewma 0, no samples, no transitions, level = min_level.
  void reset() noexcept;

  // Adopts a new config, keeping ewma, samples and counters; clamps the current level into
  // [min_level, max_level] without counting that as a transition. Returns the validation
  // reason (and changes nothing) when the config is invalid.
  expected<void, std::string> reconfigure(const policy_config& config);

  const policy_config& config() const noexcept { return config_; }
  policy_state state() const noexcept;
  precision level() const noexcept { return level_.load(std::memory_order_acquire); }
  double ewma() const noexcept;
  std::uint64_t samples() const noexcept { return samples_.load(std::memory_order_acquire); }
  std::uint64_t upgrades() const noexcept { return upgrades_.load(std::memory_order_acquire); }
  std::uint64_t downgrades() const noexcept { return downgrades_.load(std::memory_order_acquire); }

  // The level the reference moves to from `current` when the smoothed pressure is `ewma`
  // (steps 4–6 of observe), without touching any state.
  precision decide(precision current, double ewma) const noexcept;

 private:
  // The EWMA after `previous` (NaN: no sample yet) and the clamped sample p.
  double smoothed(double previous, double p) const noexcept;

  policy_config config_;
  // NaN (bitwise-compared by compare_exchange) marks "no sample yet": the first observation
  // seeds the EWMA even when two threads race for it.
  std::atomic<double> ewma_;
  std::atomic<std::uint64_t> samples_{0};
  std::atomic<std::uint64_t> upgrades_{0};
  std::atomic<std::uint64_t> downgrades_{0};
  std::atomic<precision> level_;
};

}  // namespace kvscope
