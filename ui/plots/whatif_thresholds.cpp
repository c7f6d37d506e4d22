#include "plots/whatif_thresholds.hpp"

#include <algorithm>

#include "plots/plot_items.hpp"

namespace kvscope::ui {

WhatIfThresholds::WhatIfThresholds(QCustomPlot* plot) {
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    bands_[i] = makeLevelBand(plot, QStringLiteral("bands"));
    lines_[i] = makeLevelLine(plot, QStringLiteral("bands"));
    // At the right edge: the current thresholds' captions are at the left.
    captions_[i] = makeLevelText(plot, QStringLiteral("captions"), Qt::AlignRight | Qt::AlignBottom);
  }
  show(std::nullopt, policy_config{});
}

void WhatIfThresholds::show(const std::optional<policy_config>& whatIf, const policy_config& current) {
  const bool differs = whatIf && whatIf->family == policy_family::ewma &&
                       (whatIf->q8_threshold != current.q8_threshold || whatIf->q4_threshold != current.q4_threshold ||
                        whatIf->q3_threshold != current.q3_threshold || whatIf->hysteresis != current.hysteresis ||
                        current.family != policy_family::ewma);
  // q3's only when the what-if has a q3 threshold.
  const std::size_t count = differs ? (whatIf->q3_threshold ? 3 : 2) : 0;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    lines_[i]->setVisible(i < count);
    bands_[i]->setVisible(i < count);
    captions_[i]->setVisible(i < count);
  }
  if (!differs) return;
  const double h = whatIf->hysteresis;
  const std::array<double, 3> at{whatIf->q8_threshold, whatIf->q4_threshold, whatIf->q3_threshold.value_or(0.0f)};
  const char* names[] = {"q8", "q4", "q3"};
  for (std::size_t i = 0; i < count; ++i) {
    lines_[i]->start->setCoords(0, at[i]);
    lines_[i]->end->setCoords(1, at[i]);
    bands_[i]->topLeft->setCoords(0, at[i]);
    bands_[i]->bottomRight->setCoords(1, std::max(0.0, at[i] - h));
    captions_[i]->position->setCoords(0.995, at[i]);
    captions_[i]->setText(QObject::tr("what-if %1 ≥ %2").arg(QString::fromLatin1(names[i])).arg(at[i], 0, 'f', 2));
  }
}

void WhatIfThresholds::setTheme(const Theme& t) {
  QColor label = t.base;
  label.setAlpha(200);
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    lines_[i]->setPen(QPen(t.accent, 1.5, Qt::DashLine));
    bands_[i]->setPen(QPen(t.accent, 1, Qt::DotLine));  // outlined, not filled: the current bands are
    bands_[i]->setBrush(Qt::NoBrush);
    captions_[i]->setColor(t.accent);
    captions_[i]->setBrush(label);
  }
}

bool WhatIfThresholds::shown() const { return lines_[0]->visible(); }
double WhatIfThresholds::q8LineValue() const { return lines_[0]->start->coords().y(); }
double WhatIfThresholds::q4BandBottom() const { return bands_[1]->bottomRight->coords().y(); }
bool WhatIfThresholds::q3Shown() const { return lines_[2]->visible(); }

}  // namespace kvscope::ui
