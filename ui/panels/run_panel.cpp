#include "panels/run_panel.hpp"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSignalBlocker>
#include <QStyle>
#include <QToolButton>

#include <algorithm>
#include <climits>

namespace kvscope::ui {

RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("runPanel"));
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(6, 4, 6, 4);
  play_ = new QPushButton;
  play_->setObjectName(QStringLiteral("play"));
  step_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaSkipForward), tr("Step"));
  step_->setToolTip(tr("Run one step, then pause (N)"));
  reset_ = new QPushButton(style()->standardIcon(QStyle::SP_BrowserReload), tr("Reset"));
  reset_->setToolTip(tr("Start the load again from step 0 (Ctrl+R); with a new seed below, a new "
                        "load from that seed"));
  for (QPushButton* b : {play_, step_, reset_}) b->setFocusPolicy(Qt::TabFocus);
  speed_ = new QComboBox;
  speed_->setObjectName(QStringLiteral("speed"));
  for (double s : {1.0, 5.0, 20.0, 60.0, 200.0, 1000.0}) {
    speed_->addItem(tr("%1 steps/s").arg(s), s);
  }
  speed_->addItem(tr("as fast as possible"), 0.0);
  speed_->setCurrentIndex(3);
  speed_->setToolTip(tr("Engine steps per wall-clock second. Each step is one batched forward "
                        "pass, about 13 ms of simulated time in the demo. \"As fast as possible\" "
                        "plays a long trace through in seconds. Until you pick one, the pace comes from "
                        "the load's length: the whole load in about three minutes, from 60 to 1,000 "
                        "steps/s."));
  seed_ = new QSpinBox;
  seed_->setObjectName(QStringLiteral("seed"));
  seed_->setRange(0, INT_MAX);
  seed_->setValue(1);
  seed_->setKeyboardTracking(false);  // a typed seed is one change, not one per digit
  seed_->setToolTip(tr("Seed of the generated load and of the synthetic K/V data; a new seed "
                       "takes effect at Reset"));
  grid->addWidget(play_, 0, 0);
  grid->addWidget(step_, 0, 1);
  grid->addWidget(reset_, 0, 2);
  // Speed and seed share a row: the side column is short on a laptop screen.
  auto* settings = new QHBoxLayout;
  settings->addWidget(new QLabel(tr("speed")));
  settings->addWidget(speed_, 3);
  settings->addSpacing(6);
  settings->addWidget(new QLabel(tr("seed")));
  settings->addWidget(seed_, 2);
  // A recorded trace is quiet for most of its length: this goes to where something happens.
  // Beside the buttons, not on a row of its own: the column's tabs below need the height.
  jump_ = new QToolButton;
  jump_->setObjectName(QStringLiteral("jumpTo"));
  // The arrow in the text, not the style's menu indicator, which the narrow column clipped.
  jump_->setText(tr("Jump to ▾"));
  jump_->setStyleSheet(QStringLiteral("QToolButton::menu-indicator { image: none; width: 0px; }"));
  jump_->setPopupMode(QToolButton::InstantPopup);
  jump_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
  jump_->setFocusPolicy(Qt::TabFocus);
  grid->addWidget(jump_, 0, 3);
  grid->addLayout(settings, 1, 0, 1, 4);
  grid->setRowStretch(2, 1);

  connect(play_, &QPushButton::clicked, this, &RunPanel::togglePlay);
  connect(step_, &QPushButton::clicked, this, &RunPanel::stepOnce);
  connect(reset_, &QPushButton::clicked, this, &RunPanel::reset);
  connect(speed_, &QComboBox::currentIndexChanged, this,
          [this] { Q_EMIT command(speed_command{stepsPerSecond()}); });
  connect(seed_, &QSpinBox::valueChanged, this,
          [this](int v) { Q_EMIT seedChanged(static_cast<std::uint64_t>(v)); });
  showPlaying();
}

double RunPanel::stepsPerSecond() const { return speed_->currentData().toDouble(); }
std::uint64_t RunPanel::seed() const { return static_cast<std::uint64_t>(seed_->value()); }
void RunPanel::setSeed(std::uint64_t seed) {
  const QSignalBlocker block(seed_);
  seed_->setValue(static_cast<int>(std::min<std::uint64_t>(seed, INT_MAX)));
}

void RunPanel::setStepsPerSecond(double stepsPerSecond) {
  const QSignalBlocker block(speed_);
  int index = speed_->findData(stepsPerSecond);
  if (index < 0) {
    speed_->addItem(tr("%1 steps/s").arg(stepsPerSecond), stepsPerSecond);
    index = speed_->count() - 1;
  }
  speed_->setCurrentIndex(index);
}

void RunPanel::showPlaying() {
  play_->setText(playing_ ? tr("Pause") : tr("Play"));
  play_->setIcon(style()->standardIcon(playing_ ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  play_->setToolTip(tr("Play or pause the engine (Space)"));
}

void RunPanel::setPlaying(bool playing) {
  lastUserAction_.start();
  playing_ = playing;
  showPlaying();
  Q_EMIT command(playing ? runner_command{play_command{}} : runner_command{pause_command{}});
}

void RunPanel::togglePlay() { setPlaying(!playing_); }

void RunPanel::showEngineState(bool playing) {
  if (playing == playing_) return;
  if (lastUserAction_.isValid() && lastUserAction_.elapsed() < 400) return;
  playing_ = playing;
  showPlaying();
}

void RunPanel::stepOnce() {
  lastUserAction_.start();
  playing_ = false;
  showPlaying();
  Q_EMIT command(step_command{1});
}

void RunPanel::reset() { Q_EMIT resetRequested(seed()); }

}  // namespace kvscope::ui
