#pragma once
// The pressure plot's level over time, behind the data.
#include "common/qcustomplot_include.hpp"
#include "common/theme.hpp"

namespace kvscope::ui {

// Paints the level over time behind the data: a faint tint over the whole height and a solid
// strip along the bottom, one run per level between transitions.
class LevelBackground : public QCPLayerable {
 public:
  explicit LevelBackground(QCustomPlot* plot) : QCPLayerable(plot, QStringLiteral("levels")) {}
  void setTheme(const Theme* theme) { theme_ = theme; }
  void setHistory(const metrics_history* history) { history_ = history; }

 protected:
  void applyDefaultAntialiasingHint(QCPPainter* painter) const override {
    painter->setAntialiasing(false);
  }
  QRect clipRect() const override { return mParentPlot->axisRect()->rect(); }
  void draw(QCPPainter* painter) override;

 private:
  const metrics_history* history_ = nullptr;
  const Theme* theme_ = &lightTheme();
};

}  // namespace kvscope::ui
