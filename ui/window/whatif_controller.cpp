#include "window/whatif_controller.hpp"

#include <QTimer>

namespace kvscope::ui {

WhatIfController::WhatIfController(QObject* parent) : QObject(parent) {
  currentJobs_ = new BackgroundRun(this);
  whatIfJobs_ = new BackgroundRun(this);
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(250);  // a slider drag settles before its whole run starts
  debounce_->setTimerType(Qt::PreciseTimer);  // a coarse timer may fire 5 % early
  connect(debounce_, &QTimer::timeout, this, &WhatIfController::startWhatIf);
  connect(currentJobs_, &BackgroundRun::finished, this, [this](quint64, const OutcomePtr& o) {
    current_ = o;
    Q_EMIT currentChanged(o);
  });
  connect(whatIfJobs_, &BackgroundRun::finished, this, [this](quint64, const OutcomePtr& o) {
    latencyMs_ = sinceChange_.elapsed();
    whatIf_ = o;
    Q_EMIT whatIfChanged(o);
    // The current config's whole run (once per run) after the what-if's, not beside it: on a
    // small machine the ghost comes first, twice as soon.
    ensureCurrent();
  });
}

void WhatIfController::setDebounceMs(int ms) { debounce_->setInterval(ms); }

bool WhatIfController::whatIfPending() const { return debounce_->isActive() || whatIfJobs_->busy(); }

void WhatIfController::setRun(const run_description& run) {
  const run_description whole = wholeRun(run);
  discard();
  if (ranExactly(current_, whole)) {
    run_ = whole;
    return;
  }
  run_ = whole;
  currentJobs_->cancel();
  current_.reset();
  Q_EMIT currentChanged(nullptr);
}

void WhatIfController::ensureCurrent() {
  if (!current_ && !currentJobs_->busy()) currentJobs_->start(run_);
}

void WhatIfController::propose(const policy_config& config) {
  run_description candidate = run_;
  candidate.options.policy = config;
  proposeRun(candidate);
}

void WhatIfController::proposeRun(const run_description& candidate) {
  sinceChange_.start();
  proposed_ = wholeRun(candidate);
  if (sameRun(proposed_, run_)) {
    discard();
    return;
  }
  debounce_->start();
}

void WhatIfController::startWhatIf() {
  whatIfJobs_->start(proposed_);
  Q_EMIT whatIfStarted();
}

void WhatIfController::discard() {
  debounce_->stop();
  whatIfJobs_->cancel();
  if (!whatIf_) return;
  whatIf_.reset();
  Q_EMIT whatIfChanged(nullptr);
}

bool WhatIfController::apply() {
  if (!whatIf_ || !whatIf_->error.isEmpty()) return false;
  const OutcomePtr chosen = whatIf_;
  run_ = chosen->run;
  current_ = chosen;
  currentJobs_->cancel();
  discard();
  Q_EMIT currentChanged(current_);
  Q_EMIT applied(chosen);
  return true;
}

}  // namespace kvscope::ui
