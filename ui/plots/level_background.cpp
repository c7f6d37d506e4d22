#include "plots/level_background.hpp"

#include <algorithm>

namespace kvscope::ui {

void LevelBackground::draw(QCPPainter* painter) {
  if (!history_ || history_->empty()) return;
  QCPAxis* x = mParentPlot->xAxis;
  const QRect area = mParentPlot->axisRect()->rect();
  const int strip = 7;
  const auto paintRun = [&](double t0, double t1, precision level) {
    if (t1 < x->range().lower || t0 > x->range().upper) return;
    const int a = static_cast<int>(x->coordToPixel(t0)), b = static_cast<int>(x->coordToPixel(t1)) + 1;
    const QRect run(a, area.top(), std::max(1, b - a), area.height());
    const auto i = static_cast<std::size_t>(ordinal(level));
    if (level != precision::fp16) painter->fillRect(run.adjusted(0, 0, 0, -strip), theme_->levelTint[i]);
    painter->fillRect(QRect(run.left(), area.bottom() - strip + 1, run.width(), strip), theme_->level[i]);
  };
  double start = history_->first_point().sim_time_s;
  precision level = history_->first_point().level;
  bool first = true;
  for (const level_transition& tr : history_->transitions()) {
    if (tr.sim_time_s < start) continue;
    paintRun(start, tr.sim_time_s, first ? tr.from : level);
    first = false;
    start = tr.sim_time_s;
    level = tr.to;
  }
  paintRun(start, history_->last_point().sim_time_s, level);
}

}  // namespace kvscope::ui
