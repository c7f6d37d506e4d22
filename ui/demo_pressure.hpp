#pragma once
#include <algorithm>
#include <cmath>

namespace kvscope::ui {

// Stand-in demo load until the engine drives the window: a pressure curve that climbs through
// both default thresholds and falls back, with some noise-like ripple.
inline double demo_pressure(int step) {
  const double t = step % 600 / 600.0;
  const double envelope = t < 0.5 ? 0.3 + 1.4 * t : 1.0 - 1.2 * (t - 0.5);
  return std::clamp(envelope + 0.03 * std::sin(step * 0.7), 0.0, 1.0);
}

}  // namespace kvscope::ui
