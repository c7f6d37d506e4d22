#pragma once
// The policy's one path through the window. A config the user makes on the policy panel (or
// imports from a file) moves the pressure plot's bands at once, before the engine has even
// seen it, goes to the live engine, and is then announced (proposed) for the what-if; a config
// the engine reports (a reset, a new run) goes back to the panel and the bands. Policy files go
// in and out here too, an exported one with the provenance of the run it describes.
#include <QObject>
#include <QString>

#include "jobs/background_run.hpp"  // OutcomePtr
#include "common/meta_types.hpp"

namespace kvscope::ui {

class EngineBridge;
class PolicyPanel;
class PressurePlot;

class PolicyController : public QObject {
  Q_OBJECT
 public:
  PolicyController(PolicyPanel* panel, PressurePlot* plot, EngineBridge* bridge, QObject* parent = nullptr);

  // The config on the panel: the one the live run is tuned to now.
  policy_config config() const;
  // A config read from a file: shown, applied live and proposed, as a change on the panel is.
  void apply(const policy_config& config);
  // Shows and applies `config` live without proposing it (the what-if was discarded).
  void restore(const policy_config& config);
  // A reset rebuilds the engine with the run's `initial` config: the one tuned since, again.
  void reapplyAfterReset(const policy_config& initial);

  // The share of the live run of `run` (0..1) its steps under the config on the panel make.
  double governedShare(const run_description& run) const;
  // Writes the panel's config to `path` with its provenance: `whole` (a finished whole run of
  // exactly this config on `run`) when there is one, else the live run so far with the share
  // of it this config governed. False with a message naming the file on failure.
  bool exportConfig(const QString& path, const run_description& run, const OutcomePtr& whole,
                    QString* error) const;
  // Reads a config file and applies it as a change made on the panel.
  bool importConfig(const QString& path, QString* error);

 Q_SIGNALS:
  // A config the user made, already live: what the what-if runs over the whole load.
  void proposed(const kvscope::policy_config& config);

 private:
  void applyLive(const policy_config& config);  // the bands and the engine

  PolicyPanel* panel_;
  PressurePlot* plot_;
  EngineBridge* bridge_;
};

}  // namespace kvscope::ui
