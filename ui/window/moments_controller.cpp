#include "window/moments_controller.hpp"

#include <QMenu>
#include <QTimer>
#include <QToolButton>

#include <algorithm>
#include <variant>

#include "jobs/background_run.hpp"
#include "jobs/engine_bridge.hpp"
#include "panels/jump_menu.hpp"
#include "window/policy_controller.hpp"
#include "window/whatif_controller.hpp"
#include "run/run_ahead.hpp"
#include "run/snapshot.hpp"
#include "panels/run_panel.hpp"
#include "common/run_setup.hpp"

namespace kvscope::ui {
namespace {

bool actsOnEngine(const runner_command& c) {
  return std::holds_alternative<reconfigure_command>(c) || std::holds_alternative<reset_command>(c);
}

}  // namespace

MomentsController::MomentsController(EngineBridge* bridge, RunPanel* runPanel, PolicyController* policy,
                                     QObject* parent)
    : QObject(parent), bridge_(bridge), runPanel_(runPanel), policy_(policy) {
  // Found before anyone asks: the live run keeps its pace while a long load is searched.
  jobs_ = new BackgroundRun(this, BackgroundRun::Share::ahead);
  menu_ = new QMenu(tr("&Jump to"), runPanel_);
  menu_->setObjectName(QStringLiteral("jumpMenu"));
  runPanel_->jumpButton()->setMenu(menu_);
  check_ = new QTimer(this);
  check_->setSingleShot(true);
  // A reconfigure is applied at the engine's next step boundary and shown within a poll or two.
  check_->setInterval(300);
  connect(check_, &QTimer::timeout, this, &MomentsController::checkAhead);
  start_ = new QTimer(this);
  start_->setSingleShot(true);
  start_->setInterval(0);
  connect(start_, &QTimer::timeout, this, [this] { find(ahead_); });
  // "Next" and "previous" are from the step the view shows when the menu opens.
  connect(menu_, &QMenu::aboutToShow, this, &MomentsController::refillMenu);
  connect(jobs_, &BackgroundRun::progress, this, [this](quint64, double fraction, double) {
    showState(tr("Finding the moments: the whole load runs in the background, %1 % done")
                  .arg(fraction * 100, 0, 'f', 0));
  });
  connect(jobs_, &BackgroundRun::finished, this, [this](quint64, const OutcomePtr& o) { take(o); });
  connect(bridge_, &EngineBridge::snapshotReady, this, &MomentsController::onSnapshot);
  connect(bridge_, &EngineBridge::commandPosted, this, &MomentsController::onCommandPosted);
  showState();
}

void MomentsController::setRun(const run_description& run) {
  run_ = run;
  frontEndChanged_ = false;
  enginePosts_ = 0;
  jump_.reset();  // the engine it was running is gone
  moments_.reset();
  error_.clear();
  jobs_->cancel();
  check_->stop();
  ahead_ = run_ahead(run, {}, false);
  if (active_) start_->start();
  showState();
  Q_EMIT momentsChanged();
}

void MomentsController::setActive(bool active) {
  active_ = active;
  if (!active) {
    start_->stop();
    check_->stop();
    jobs_->cancel();
    jump_.reset();
  } else if (!moments_ && !jobs_->busy()) {
    start_->start();
  }
  showState();
}

void MomentsController::shareRunsWith(const WhatIfController* whatIf) {
  whatIf_ = whatIf;
  // The what-if's current run may finish first, though ours started before it: ours yields to
  // the live engine (Share::ahead), the what-if's does not.
  connect(whatIf_, &WhatIfController::currentChanged, this, [this](const OutcomePtr& o) {
    if (jobs_->busy() && ranExactly(o, ahead_)) {
      jobs_->cancel();
      take(o);
    }
  });
}

void MomentsController::find(const run_description& ahead) {
  ahead_ = ahead;
  moments_.reset();
  error_.clear();
  if (whatIf_ && ranExactly(whatIf_->current(), ahead)) {  // the same run's moments, already found
    jobs_->cancel();
    take(whatIf_->current());
    return;
  }
  jobs_->start(ahead);
  showState();
  Q_EMIT momentsChanged();
}

void MomentsController::take(const OutcomePtr& o) {
  error_ = o->error;
  if (error_.isEmpty()) moments_ = o->moments;
  showState();
  Q_EMIT momentsChanged();
  if (!moments_) return;
  chooseSpeed();
  if (pendingKind_) {
    const std::optional<moment> m = firstOf(*pendingKind_);
    pendingKind_.reset();
    if (m) {
      jumpTo(*m, false);
    } else {
      Q_EMIT statusMessage(tr("This run has no such moment to jump to"), 8000);
    }
  }
}

void MomentsController::post(const runner_command& c) {
  posting_ = true;
  bridge_->post(c);
  posting_ = false;
}

void MomentsController::onCommandPosted(const runner_command& c) {
  if (actsOnEngine(c)) ++enginePosts_;
  if (posting_ || !active_) return;
  if (std::holds_alternative<speed_command>(c)) speedChosen_ = true;
  if (jump_) abandon(tr("Jump stopped: the run was commanded on the way"));
  if (!actsOnEngine(c)) return;
  // The live run may have left the run its moments were found on: look once the engine has it.
  frontEndChanged_ = true;
  check_->start();
  showState(tr("The run changed: checking its moments…"));
}

void MomentsController::checkAhead() {
  const SnapshotPtr s = bridge_->current();
  if (!s || !active_) return;
  const auto applied = std::count_if(s->command_log.begin(), s->command_log.end(),
                                     [](const logged_command& c) { return actsOnEngine(c.command); });
  if (applied < enginePosts_) {  // not applied yet: look again shortly
    check_->start(100);
    return;
  }
  const run_description ahead = run_ahead(run_, s->command_log, frontEndChanged_);
  if ((moments_ || jobs_->busy()) && same_commands(ahead.commands, ahead_.commands)) {
    showState();  // a reset that replays the same steps, a config set back: the same moments
    return;
  }
  find(ahead);
}

std::optional<moment> MomentsController::firstOf(moment_kind kind) const {
  if (!moments_) return std::nullopt;
  switch (kind) {
    case moment_kind::peak_pressure: return moments_->peak_pressure;
    case moment_kind::busiest_minute: return moments_->busiest_minute;
    case moment_kind::level_change:
      return moments_->level_changes.empty() ? std::nullopt : std::optional(moments_->level_changes.front());
    case moment_kind::preemption:
      return moments_->preemptions.empty() ? std::nullopt : std::optional(moments_->preemptions.front());
  }
  return std::nullopt;
}

void MomentsController::jumpWhenFound(moment_kind kind) {
  pendingKind_ = kind;
  if (!moments_ || check_->isActive()) return;
  const std::optional<moment> m = firstOf(kind);
  pendingKind_.reset();
  if (m) jumpTo(*m, false);
}

}  // namespace kvscope::ui
