#pragma once
// The status bar's permanent part: what the engine runs, its step, simulated time, pressure,
// level and queue, why it stopped, and a progress bar for long work (an export, a load). The main
// window arranges it; the numbers come from the snapshot it shows.
#include <QObject>
#include <QString>

#include "common/meta_types.hpp"
#include "common/theme.hpp"

class QLabel;
class QProgressBar;
class QStatusBar;

namespace kvscope::ui {

class LiveLabel;

class RunStatus : public QObject {
  Q_OBJECT
 public:
  // Adds its widgets to `bar`, in order, as permanent widgets.
  explicit RunStatus(QStatusBar* bar, QObject* parent = nullptr);

  // What the engine runs, and the tooltip that says more.
  void showRun(const QString& text, const QString& toolTip);
  void setRunToolTip(const QString& toolTip);
  // The snapshot's step, time, pressure, level (in `theme`'s colours), queue and any error.
  void showSnapshot(const engine_snapshot& s, const Theme& theme);
  // Long work's share done in [0, 1]; hide() when it is over.
  void showProgress(double fraction);
  void hideProgress();

 private:
  LiveLabel* step_ = nullptr;
  LiveLabel* time_ = nullptr;
  LiveLabel* pressure_ = nullptr;
  LiveLabel* level_ = nullptr;
  LiveLabel* queue_ = nullptr;
  QLabel* feed_ = nullptr;
  QLabel* error_ = nullptr;
  QProgressBar* progress_ = nullptr;
};

}  // namespace kvscope::ui
