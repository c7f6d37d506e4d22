#pragma once
// The what-if's thresholds on the pressure plot, beside its dashed EWMA: where the what-if
// config would compress (its q8 and q4 lines, and q3's when it has a q3 threshold) and relax (the bottoms of their hysteresis bands),
// in the what-if's colour, captioned at the right edge. Drawn only for a what-if of the ewma
// family whose thresholds or hysteresis differ from the current config's.
#include <array>
#include <optional>

#include "policy/policy_config.hpp"
#include "common/theme.hpp"

class QCustomPlot;
class QCPItemLine;
class QCPItemRect;
class QCPItemText;

namespace kvscope::ui {

class WhatIfThresholds {
 public:
  // Items on `plot`'s "bands" and "captions" layers, hidden until show().
  explicit WhatIfThresholds(QCustomPlot* plot);
  // Draws `whatIf`'s thresholds against `current`'s (hidden when none, or nothing differs).
  void show(const std::optional<policy_config>& whatIf, const policy_config& current);
  void setTheme(const Theme& theme);
  bool shown() const;
  double q8LineValue() const;  // for tests
  double q4BandBottom() const;
  bool q3Shown() const;

 private:
  std::array<QCPItemLine*, 3> lines_{};  // q8, q4, q3
  std::array<QCPItemRect*, 3> bands_{};  // below each: the hysteresis band, outlined
  std::array<QCPItemText*, 3> captions_{};
};

}  // namespace kvscope::ui
