#pragma once
// Play/pause, single step, speed, reset and seed. Play, pause, step and speed become
// runner_commands; Reset asks the window, which posts a reset_command when the seed is the one
// running, and otherwise builds a new run from the new seed (the generated load's and the K/V
// data's). The play button follows the engine's own report (engine_snapshot::playing).
#include <QElapsedTimer>
#include <QWidget>

#include "run/commands.hpp"

class QComboBox;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace kvscope::ui {

class RunPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunPanel(QWidget* parent = nullptr);
  bool playing() const { return playing_; }
  double stepsPerSecond() const;
  std::uint64_t seed() const;
  QPushButton* playButton() const { return play_; }
  QPushButton* resetButton() const { return reset_; }
  QSpinBox* seedBox() const { return seed_; }
  QComboBox* speedBox() const { return speed_; }
  // "Jump to": its menu of the run's moments is MomentsController's.
  QToolButton* jumpButton() const { return jump_; }

 public Q_SLOTS:
  void setPlaying(bool playing);  // also posts play/pause
  // What the engine reports (engine_snapshot::playing); posts nothing.
  void showEngineState(bool playing);
  void togglePlay();
  void stepOnce();
  void reset();
  // Show a value without emitting anything (it came from the engine or the load panel).
  void setSeed(std::uint64_t seed);
  void setStepsPerSecond(double stepsPerSecond);

 Q_SIGNALS:
  void command(const kvscope::runner_command& command);
  void seedChanged(std::uint64_t seed);
  void resetRequested(std::uint64_t seed);

 private:
  void showPlaying();
  QPushButton* play_ = nullptr;
  QPushButton* step_ = nullptr;
  QPushButton* reset_ = nullptr;
  QComboBox* speed_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QToolButton* jump_ = nullptr;
  bool playing_ = true;
  QElapsedTimer lastUserAction_;  // the engine's report lags a click by a snapshot or two
};

}  // namespace kvscope::ui
