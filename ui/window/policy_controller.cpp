#include "window/policy_controller.hpp"

#include "jobs/engine_bridge.hpp"
#include "io/policy_file.hpp"
#include "io/summary_format.hpp"
#include "panels/policy_panel.hpp"
#include "plots/pressure_plot.hpp"
#include "run/config_history.hpp"
#include "run/run_summary.hpp"
#include "common/run_setup.hpp"

namespace kvscope::ui {

PolicyController::PolicyController(PolicyPanel* panel, PressurePlot* plot, EngineBridge* bridge, QObject* parent)
    : QObject(parent), panel_(panel), plot_(plot), bridge_(bridge) {
  connect(panel_, &PolicyPanel::policyChanged, this, [this](const policy_config& c) {
    applyLive(c);
    Q_EMIT proposed(c);
  });
  connect(bridge_, &EngineBridge::enginePolicy, this, [this](const policy_config& c) {
    panel_->setConfig(c);
    plot_->setPolicy(c);
  });
}

policy_config PolicyController::config() const { return panel_->config(); }

void PolicyController::apply(const policy_config& config) {
  panel_->setConfig(config);
  applyLive(config);
  Q_EMIT proposed(config);
}

void PolicyController::restore(const policy_config& config) {
  panel_->setConfig(config);
  applyLive(config);
}

void PolicyController::reapplyAfterReset(const policy_config& initial) {
  if (!(config() == initial)) bridge_->postPolicy(config());
}

double PolicyController::governedShare(const run_description& run) const {
  const auto snap = bridge_->current();
  if (!snap) return 0;
  return governed_share(config_history(run.options.policy, snap->command_log, snap->step), config());
}

bool PolicyController::exportConfig(const QString& path, const run_description& run, const OutcomePtr& whole,
                                    QString* error) const {
  policy_provenance prov;
  prov.load = run.load_spec;
  prov.model = run.options.model;
  prov.budget_bytes = resolvedBudget(run.options);  // what the figures below had, `auto` or not
  if (run.options.q4_storage == q4_format::q4o) {  // the q4 blocks' error and bytes were q4o's
    prov.q4_format = std::string(tag(run.options.q4_storage));
    prov.q4o_channels = run.options.q4o_channels;
  }
  // What a run achieved, as kvscope-cli's summary reports it: a whole run of exactly this
  // config when there is one, else the live run so far, with the share of its steps this
  // config governed (config_share_of_run < 1: other thresholds made the rest of it).
  const run_summary* summary = nullptr;
  double share = 1;
  if (whole) {
    summary = &whole->summary;
  } else if (const auto snap = bridge_->current(); snap && snap->summary) {
    summary = &*snap->summary;
    share = governedShare(run);
  }
  if (summary) {
    prov.metrics.emplace_back("config_share_of_run", share);
    prov.metrics.emplace_back("steps", static_cast<double>(summary->steps));
    for (auto& m : summary_metrics(*summary)) prov.metrics.push_back(std::move(m));
  }
  const auto written = write_policy_config(path.toStdString(), config(), &prov);
  if (!written) {
    if (error) *error = QString::fromStdString(written.error());
    return false;
  }
  return true;
}

bool PolicyController::importConfig(const QString& path, QString* error) {
  const auto read = read_policy_config(path.toStdString());
  if (!read) {
    if (error) *error = QString::fromStdString(read.error());
    return false;
  }
  apply(*read);  // as a change made on the sliders: compared with the current config
  return true;
}

void PolicyController::applyLive(const policy_config& config) {
  // The bands move first: the engine takes the config at its next step.
  plot_->setPolicy(config);
  bridge_->postPolicy(config);
}

}  // namespace kvscope::ui
