#pragma once
// Play/pause, single step, speed, reset and seed. Every control becomes a runner_command
// (the seed has no command yet: see MainWindow). The play button follows the engine's own
// report (engine_snapshot::playing) once a snapshot says so.
#include <QElapsedTimer>
#include <QWidget>

#include "engine/commands.hpp"

class QComboBox;
class QPushButton;
class QSpinBox;

namespace kvscope::ui {

class RunPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunPanel(QWidget* parent = nullptr);
  bool playing() const { return playing_; }
  double stepsPerSecond() const;
  std::uint64_t seed() const;
  QPushButton* playButton() const { return play_; }

 public Q_SLOTS:
  void setPlaying(bool playing);  // also posts play/pause
  // What the engine reports (engine_snapshot::playing); posts nothing.
  void showEngineState(bool playing);
  void togglePlay();
  void stepOnce();
  void reset();
  void setSeed(std::uint64_t seed);

 Q_SIGNALS:
  void command(const kvscope::runner_command& command);
  void seedChanged(std::uint64_t seed);

 private:
  void showPlaying();
  QPushButton* play_ = nullptr;
  QPushButton* step_ = nullptr;
  QPushButton* reset_ = nullptr;
  QComboBox* speed_ = nullptr;
  QSpinBox* seed_ = nullptr;
  bool playing_ = true;
  QElapsedTimer lastUserAction_;  // the engine's report lags a click by a snapshot or two
};

}  // namespace kvscope::ui
