// MomentsController's jumps and the state of its button; finding the moments is in
// moments_controller.cpp.
#include <QMenu>
#include <QTimer>
#include <QToolButton>

#include <algorithm>
#include <variant>

#include "jobs/background_run.hpp"
#include "jobs/engine_bridge.hpp"
#include "panels/jump_menu.hpp"
#include "window/moments_controller.hpp"
#include "window/policy_controller.hpp"
#include "run/run_ahead.hpp"
#include "run/snapshot.hpp"
#include "panels/run_panel.hpp"
#include "common/run_setup.hpp"

namespace kvscope::ui {
namespace {

// A pause applied at or after `from` in the log: the engine has stopped since we asked.
bool pausedSince(const std::vector<logged_command>& log, std::size_t from) {
  return std::any_of(log.begin() + static_cast<std::ptrdiff_t>(std::min(from, log.size())), log.end(),
                     [](const logged_command& c) { return std::holds_alternative<pause_command>(c.command); });
}

}  // namespace

// Forward: pause first (a playing engine would step between our look at it and the count we
// post), then, from the paused snapshot's step, exactly the steps to the moment as one
// step_command, flat out (speed 0); the runner pauses there and publishes that step. Backward:
// a reset and the steps from 0, when a reset replays the steps the moments were found on.
bool MomentsController::jumpTo(const moment& m, bool resume) {
  const SnapshotPtr s = bridge_->current();
  if (!active_ || !moments_ || check_->isActive() || !s) {
    Q_EMIT statusMessage(tr("The moments of this run are still being found"), 6000);
    return false;
  }
  jump_.reset();
  Jump j;
  j.target = m.step + 1;
  j.generation = s->generation;
  j.logSize = s->command_log.size();
  j.resume = resume;
  j.to = m;
  if (j.target > s->step) {
    post(pause_command{});
    post(speed_command{0});
    jump_ = j;
    Q_EMIT statusMessage(tr("Jumping to %1: running flat out to step %2…").arg(momentText(m)).arg(j.target), 0);
    return true;
  }
  if (!reset_replays(ahead_, policy_->config())) {
    Q_EMIT statusMessage(tr("%1 is behind the live view, and this run changed its config on the way: a "
                            "restart would not replay it. Reset (Ctrl+R) starts over under the current "
                            "config, whose moments are then found again.").arg(momentText(m)), 15000);
    return false;
  }
  post(pause_command{});
  post(speed_command{0});
  posting_ = true;
  Q_EMIT restartRequested();  // the window posts the reset (and the policy as tuned)
  posting_ = false;
  post(step_command{static_cast<std::uint32_t>(j.target)});
  j.restarted = true;
  j.running = true;
  jump_ = j;
  Q_EMIT statusMessage(tr("Jumping back to %1: restarting from step 0, flat out to step %2…")
                           .arg(momentText(m)).arg(j.target), 0);
  return true;
}

void MomentsController::onSnapshot(const SnapshotPtr& s) {
  if (!jump_) return;
  Jump& j = *jump_;
  if (!s->error.empty()) {
    abandon(tr("Jump stopped: the engine stopped (%1)").arg(QString::fromStdString(s->error)));
    return;
  }
  if (!j.running) {
    if (s->generation != j.generation) {
      abandon(tr("Jump stopped: the run started again"));
      return;
    }
    if (s->playing || !pausedSince(s->command_log, j.logSize)) return;  // not paused yet
    if (s->step == j.target) {
      land(s);
    } else if (s->step > j.target) {  // it passed the moment while pausing: go back to it
      const moment m = j.to;
      const bool resume = j.resume;
      jump_.reset();
      if (!jumpTo(m, resume)) post(speed_command{runPanel_->stepsPerSecond()});
    } else {
      post(step_command{static_cast<std::uint32_t>(j.target - s->step)});
      j.running = true;
    }
    return;
  }
  // A restart lands in the next generation; its old one's snapshots still arrive for a poll.
  if ((s->generation != j.generation) != j.restarted) return;
  if (s->step == j.target && !s->playing) {
    land(s);
  } else if (s->finished || s->step > j.target) {
    abandon(tr("Jump stopped: the run ended at step %1, before %2").arg(s->step).arg(momentText(j.to)));
  }
}

void MomentsController::land(const SnapshotPtr& s) {
  const Jump j = *jump_;
  jump_.reset();
  post(speed_command{runPanel_->stepsPerSecond()});
  if (j.resume) post(play_command{});
  Q_EMIT statusMessage(j.resume ? tr("At %1 (step %2), playing on").arg(momentText(j.to)).arg(s->step)
                                : tr("At %1 (step %2), paused").arg(momentText(j.to)).arg(s->step),
                       10000);
  Q_EMIT landed(s->step);
}

void MomentsController::abandon(const QString& why) {
  jump_.reset();
  post(speed_command{runPanel_->stepsPerSecond()});  // the jump ran flat out
  Q_EMIT statusMessage(why, 8000);
}

void MomentsController::showState(const QString& busyText) {
  QToolButton* button = runPanel_->jumpButton();
  const bool ready = active_ && moments_ && !check_->isActive() && !jobs_->busy();
  button->setEnabled(ready);
  menu_->menuAction()->setEnabled(ready);
  QString tip;
  if (!active_) {
    tip = tr("Not in a tour");
  } else if (!error_.isEmpty()) {
    tip = tr("The moments could not be found: %1").arg(error_);
  } else if (!ready) {
    tip = busyText.isEmpty() ? tr("Finding the moments: the whole load runs in the background…") : busyText;
  } else {
    tip = tr("Jump to the peak of the pressure, the busiest minute, a level change or a preemption, "
             "found on a whole run of this load and config in the background: the engine runs flat "
             "out to that step, then on at the chosen pace");
  }
  button->setToolTip(tip);
  menu_->menuAction()->setToolTip(tip);
  if (ready) refillMenu();
}

void MomentsController::refillMenu() {
  if (!moments_) return;
  const SnapshotPtr s = bridge_->current();
  // A jump from the menu plays on if the run was playing, and stays paused there if it was not.
  fillJumpMenu(menu_, *moments_, s ? s->latest.step : 0, [this](const moment& m) { jumpTo(m, runPanel_->playing()); });
}

// The rule is core's default_steps_per_second: the whole run in about three minutes, between the
// demo's 60 steps/s and 1,000. Only while the pace is the app's default or one chosen here: a
// replay's flat out, --speed or a pick in the speed box stay.
void MomentsController::chooseSpeed() {
  const double now = runPanel_->stepsPerSecond();
  if (speedChosen_ || (now != demoStepsPerSecond && now != autoSpeed_)) return;
  const double pace = default_steps_per_second(moments_->steps);
  autoSpeed_ = pace;
  if (pace == now) return;
  runPanel_->setStepsPerSecond(pace);
  if (!jump_) post(speed_command{pace});
  // Short: the status bar's message shares a 1366-pixel screen with the run's numbers.
  Q_EMIT statusMessage(tr("%1 steps/s: the whole load in about %2 min")
                           .arg(pace)
                           .arg(static_cast<double>(moments_->steps) / pace / 60, 0, 'f', 1),
                       10000);
}

}  // namespace kvscope::ui
