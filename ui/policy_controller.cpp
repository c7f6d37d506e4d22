#include "policy_controller.hpp"

#include "engine_bridge.hpp"
#include "policy_panel.hpp"
#include "pressure_plot.hpp"

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

void PolicyController::applyLive(const policy_config& config) {
  // The bands move first: the engine takes the config at its next step.
  plot_->setPolicy(config);
  bridge_->postPolicy(config);
}

}  // namespace kvscope::ui
