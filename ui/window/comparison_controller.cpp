#include "window/comparison_controller.hpp"

#include <QTime>

#include <optional>
#include <variant>

#include "panels/compare_panel.hpp"
#include "panels/engine_options_box.hpp"
#include "panels/latency_panel.hpp"
#include "plots/memory_plot.hpp"
#include "window/policy_controller.hpp"
#include "plots/pressure_plot.hpp"
#include "run/summary_compare.hpp"
#include "panels/run_list_panel.hpp"
#include "common/run_setup.hpp"
#include "panels/run_store.hpp"
#include "panels/sweep_panel.hpp"
#include "window/whatif_controller.hpp"

namespace kvscope::ui {
namespace {

// A run's policy, and whichever engine options differ from `other`'s (budget, model, GPU, block size).
QString setupText(const run_description& run, const run_description& other) {
  QString text = compactConfig(run.options.policy);
  const engine_options &o = run.options, &p = other.options;
  if (o.budget_bytes != p.budget_bytes) text += QStringLiteral(" · ") + QString::fromStdString(budgetLabel(o));
  if (o.model != p.model) text += QStringLiteral(" · ") + QString::fromStdString(o.model);
  if (o.gpu != p.gpu) text += QStringLiteral(" · ") + (o.gpu.empty() ? QObject::tr("no GPU") : QString::fromStdString(o.gpu));
  if (o.block_size != p.block_size) text += QObject::tr(" · block %1").arg(o.block_size);
  if (o.tail_tokens != p.tail_tokens) text += QObject::tr(" · tail %1").arg(o.tail_tokens);
  if (o.migration_batch != p.migration_batch) text += QObject::tr(" · batch %1").arg(o.migration_batch);
  return text;
}

std::vector<double> headlineOf(const OutcomePtr& o) {
  return o && o->error.isEmpty() ? headline_values(o->summary) : std::vector<double>{};
}

// Config changes and resets in a live run's log: without them it ran one config throughout.
int configChanges(const std::vector<logged_command>& log) {
  int n = 0;
  for (const logged_command& c : log) {
    n += std::holds_alternative<reconfigure_command>(c.command) || std::holds_alternative<reset_command>(c.command);
  }
  return n;
}

}  // namespace

ComparisonController::ComparisonController(const run_description& run, const Views& views,
                                           PolicyController* policy, const QString& runsDirectory, QObject* parent)
    : QObject(parent), views_(views), policy_(policy) {
  whatIf_ = new WhatIfController(this);
  whatIf_->setRun(run);  // before the wiring: the compare panel keeps its opening text until a change
  runs_ = new RunStore(runsDirectory, this);
  recorder_ = new BackgroundRun(this);
  compare_ = new ComparePanel;
  runList_ = new RunListPanel(runs_);
  sweepPanel_ = new SweepPanel;
  wire();
}

void ComparisonController::wire() {
  connect(policy_, &PolicyController::proposed, whatIf_, &WhatIfController::propose);
  // Budget, model, block size…: the same run on another engine, with the policy as it is now.
  connect(views_.engineBox, &EngineOptionsBox::changed, this, [this] {
    run_description candidate = whatIf_->run();
    candidate.options.policy = policy_->config();
    if (views_.engineBox->apply(candidate.options)) whatIf_->proposeRun(candidate);
  });
  connect(whatIf_, &WhatIfController::whatIfStarted, this, [this] {
    showWhatIf();
    Q_EMIT raiseRequested(QStringLiteral("compareDock"));
  });
  connect(whatIf_->whatIfJobs(), &BackgroundRun::progress, this,
          [this](quint64, double fraction, double left) { showProgress(fraction, left); });
  connect(whatIf_, &WhatIfController::currentChanged, this, &ComparisonController::showWhatIf);
  connect(whatIf_, &WhatIfController::whatIfChanged, this, &ComparisonController::showWhatIf);
  connect(compare_, &ComparePanel::applyRequested, this, &ComparisonController::applyWhatIf);
  connect(compare_, &ComparePanel::discardRequested, this, &ComparisonController::discardWhatIf);
  connect(runList_, &RunListPanel::compareRequested, this, &ComparisonController::compareStored);
  // A sweep runs over the run now shown; a clicked row is a what-if of that run.
  sweepPanel_->setBaseRun([this] { return whatIf_->run(); });
  connect(sweepPanel_, &SweepPanel::whatIfRequested, this, [this](const run_description& candidate, const QString& what) {
    whatIf_->proposeRun(candidate);
    Q_EMIT statusMessage(tr("What-if: %1, running the whole load…").arg(what), 6000);
  });
  connect(recorder_, &BackgroundRun::finished, this, [this](quint64, const OutcomePtr& o) {
    if (o->error.isEmpty()) keepRun(*o, recordName_);
  });
}

void ComparisonController::setRun(const run_description& run) { whatIf_->setRun(run); }

// A long load (an hour of trace, a big model) takes seconds: say how far it is and how long is left.
void ComparisonController::showProgress(double fraction, double left) {
  if (!whatIf_->whatIfPending()) return;
  compare_->setStatus(left < 0 ? tr("What-if: running the whole load again… %1 % done (Discard cancels)")
                                     .arg(fraction * 100, 0, 'f', 0)
                               : tr("What-if: running the whole load again… %1 % done, about %2 s left "
                                    "(Discard cancels)")
                                     .arg(fraction * 100, 0, 'f', 0)
                                     .arg(left, 0, 'f', left < 10 ? 1 : 0));
}

void ComparisonController::showWhatIf() {
  const OutcomePtr current = whatIf_->current(), whatIf = whatIf_->whatIf();
  const bool pending = whatIf_->whatIfPending();
  compare_->showComparison(tr("current"), headlineOf(current), tr("what-if"), headlineOf(whatIf));
  compare_->setWhatIfActions(pending || whatIf, whatIf && whatIf->error.isEmpty());
  views_.pressure->setGhost(whatIf ? whatIf->trace : nullptr,
                            whatIf ? std::optional(whatIf->run.options.policy) : std::nullopt);
  views_.memory->setGhost(whatIf ? whatIf->trace : nullptr);
  views_.latency->setGhosts(whatIf, current);
  QString text;
  if (pending) {
    text = tr("What-if: running the whole load again…");
  } else if (whatIf && !whatIf->error.isEmpty()) {
    text = tr("The what-if could not run: %1").arg(whatIf->error.toHtmlEscaped());
  } else if (whatIf) {
    text = tr("What-if <b>%1</b> (dashed on the plots), ready %2 ms after the change, against "
              "current <b>%3</b>; both whole runs of the load.")
               .arg(setupText(whatIf->run, whatIf_->run()))
               .arg(whatIf_->lastLatencyMs())
               .arg(setupText(whatIf_->run(), whatIf->run));
  } else {
    text = tr("Current: <b>%1</b>. Move a threshold, alpha or hysteresis to see what it would change "
              "over the whole load.").arg(compactConfig(whatIf_->run().options.policy));
  }
  if (whatIf && whatIf_->currentPending()) text += tr(" (the current config's run is still going)");
  compare_->setStatus(text);
}

bool ComparisonController::applyWhatIf() {
  const OutcomePtr chosen = whatIf_->whatIf();
  if (!whatIf_->apply()) return false;
  keepRun(*chosen, tr("what-if applied %1").arg(QTime::currentTime().toString()));
  Q_EMIT runRequested(chosen->run, tr("the applied what-if (%1)").arg(compactConfig(chosen->run.options.policy)));
  return true;
}

void ComparisonController::discardWhatIf() {
  whatIf_->discard();
  policy_->restore(whatIf_->run().options.policy);  // the live run goes back to the current config too
  views_.engineBox->showOptions(whatIf_->run().options);  // and a what-if budget is undone
  showWhatIf();
}

void ComparisonController::keepRun(const RunOutcome& outcome, const QString& name) {
  QString error;
  const bool kept = !runs_->add(outcome.run, outcome.summary, name, &error).isEmpty();
  Q_EMIT reported(kept, tr("Kept in Runs as “%1” (Ctrl+B pins the selected run as the baseline)").arg(name), error);
}

void ComparisonController::recordFinished(const run_description& run, const SnapshotPtr& s) {
  run_description session = sessionAt(run, *s);
  const int changes = configChanges(session.commands);
  const QString when = QTime::currentTime().toString();
  if (changes == 0) {
    session = wholeRun(std::move(session));  // one config throughout: the same as its whole run
    recordName_ = tr("run %1").arg(when);
    if (const OutcomePtr current = whatIf_->current(); ranExactly(current, session)) {
      keepRun(*current, recordName_);
      return;
    }
  } else {
    recordName_ = tr("run %1 (%2 config changes)").arg(when).arg(changes);
  }
  recorder_->start(std::move(session));  // the same run headless, for its summary
}

void ComparisonController::compareStored(const QString& referenceId, const QString& otherId) {
  const StoredRun* a = runs_->find(referenceId);
  const StoredRun* b = runs_->find(otherId);
  if (!a || !b) return;
  compare_->showComparison(a->baseline ? tr("★ %1").arg(a->name) : a->name, a->headline, b->name, b->headline);
  compare_->setWhatIfActions(false, false);
  compare_->setStatus(tr("Kept runs: <b>%1</b> (%2) against <b>%3</b> (%4).")
                          .arg(a->name.toHtmlEscaped(), a->config, b->name.toHtmlEscaped(), b->config));
  Q_EMIT raiseRequested(QStringLiteral("compareDock"));
}

OutcomePtr ComparisonController::wholeRunWith(const policy_config& config) const {
  run_description wanted = whatIf_->run();  // this load and engine, nothing else changed
  wanted.options.policy = config;
  for (const OutcomePtr& o : {whatIf_->current(), whatIf_->whatIf()}) {
    if (ranExactly(o, wanted)) return o;
  }
  return nullptr;
}

void ComparisonController::whenWholeRun(const policy_config& config, std::function<void()> ready) {
  if (wholeRunWith(config)) return ready();
  auto* once = new QObject(this);  // the connections go with it once `ready` has been called
  const auto check = [this, config, ready = std::move(ready), once] {
    if (!wholeRunWith(config)) return;
    ready();
    once->deleteLater();
  };
  connect(whatIf_, &WhatIfController::currentChanged, once, check);
  connect(whatIf_, &WhatIfController::whatIfChanged, once, check);
  if (config == whatIf_->run().options.policy) {
    whatIf_->ensureCurrent();
  } else {
    whatIf_->propose(config);
  }
}

}  // namespace kvscope::ui
