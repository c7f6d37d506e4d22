#include "policy/policy_controller.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace kvscope {
namespace {

constexpr double no_sample = std::numeric_limits<double>::quiet_NaN();

precision clamp_level(precision p, precision lo, precision hi) {
  return precision_from_ordinal(std::clamp(ordinal(p), ordinal(lo), ordinal(hi)));
}

}  // namespace

policy_controller::policy_controller(const policy_config& config)
    : config_(config), ewma_(no_sample), level_(config.min_level) {
  if (auto reason = validate(config)) throw std::invalid_argument(invalid_policy_message(*reason));
}

precision policy_controller::decide(precision current, double ewma) const noexcept {
  const double h = static_cast<double>(config_.hysteresis);
  if (config_.q3_threshold) {
    // kvscope's q3 above the reference's rule, with a band of its own: q3 is held until the EWMA
    // falls below q3 - h, then the reference's rule decides as if the level were q4.
    const double q3 = static_cast<double>(*config_.q3_threshold);
    if (ewma >= q3 || (current == precision::q3 && ewma >= q3 - h)) {
      return clamp_level(precision::q3, config_.min_level, config_.max_level);
    }
    if (current == precision::q3) current = precision::q4;
  }
  const double q8 = static_cast<double>(config_.q8_threshold);
  const double q4 = static_cast<double>(config_.q4_threshold);

  const precision raw = ewma >= q4 ? precision::q4 : ewma >= q8 ? precision::q8 : precision::fp16;
  precision target = raw;
  if (current == precision::q4 && (raw == precision::q8 || raw == precision::fp16)) {
    target = ewma < q4 - h ? raw : precision::q4;
  } else if (current == precision::q8 && raw == precision::fp16) {
    target = ewma < q8 - h ? precision::fp16 : precision::q8;
  }
  return clamp_level(target, config_.min_level, config_.max_level);
}

expected<precision, observe_error> policy_controller::observe(double pressure) noexcept {
  if (!std::isfinite(pressure)) return unexpected{observe_error::non_finite_pressure};
  const double p = std::clamp(pressure, 0.0, 1.0);
  double previous = ewma_.load(std::memory_order_relaxed);
  double next;
  do {
    next = smoothed(previous, p);
  } while (!ewma_.compare_exchange_weak(previous, next, std::memory_order_acq_rel,
                                        std::memory_order_relaxed));
  samples_.fetch_add(1, std::memory_order_acq_rel);

  precision current = level_.load(std::memory_order_acquire);
  for (;;) {
    const precision target = decide(current, next);
    if (target == current) return target;
    if (level_.compare_exchange_weak(current, target, std::memory_order_acq_rel,
                                     std::memory_order_acquire)) {
      auto& counter = ordinal(target) > ordinal(current) ? upgrades_ : downgrades_;
      counter.fetch_add(1, std::memory_order_acq_rel);
      return target;
    }
  }
}

expected<precision, observe_error> policy_controller::observe_alone(double pressure) noexcept {
  if (!std::isfinite(pressure)) return unexpected{observe_error::non_finite_pressure};
  const double next = smoothed(ewma_.load(std::memory_order_relaxed), std::clamp(pressure, 0.0, 1.0));
  ewma_.store(next, std::memory_order_release);
  samples_.store(samples_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  const precision current = level_.load(std::memory_order_relaxed);
  const precision target = decide(current, next);
  if (target != current) {
    auto& counter = ordinal(target) > ordinal(current) ? upgrades_ : downgrades_;
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    level_.store(target, std::memory_order_release);
  }
  return target;
}

double policy_controller::smoothed(double previous, double p) const noexcept {
  const double a = static_cast<double>(config_.ewma_alpha);
  return std::isnan(previous) ? p : a * p + (1.0 - a) * previous;
}

void policy_controller::reset() noexcept {
  ewma_.store(no_sample, std::memory_order_release);
  samples_.store(0, std::memory_order_release);
  upgrades_.store(0, std::memory_order_release);
  downgrades_.store(0, std::memory_order_release);
  level_.store(config_.min_level, std::memory_order_release);
}

expected<void, std::string> policy_controller::reconfigure(const policy_config& config) {
  if (auto reason = validate(config)) return unexpected{*reason};
  config_ = config;
  level_.store(clamp_level(level_.load(std::memory_order_acquire), config.min_level,
                           config.max_level),
               std::memory_order_release);
  return {};
}

double policy_controller::ewma() const noexcept {
  const double e = ewma_.load(std::memory_order_acquire);
  return std::isnan(e) ? 0.0 : e;
}

policy_state policy_controller::state() const noexcept {
  return {level(), ewma(), samples(), upgrades(), downgrades()};
}

}  // namespace kvscope
