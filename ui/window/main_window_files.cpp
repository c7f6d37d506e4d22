// MainWindow's files: export and import of policy configs, plots, metrics and sessions, the
// window screenshot, and starting a new run from a trace, the load panel or a session (off the
// GUI thread, through RunLoader). The layout and the live updates are in main_window.cpp.
#include "window/main_window.hpp"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>

#include "window/comparison_controller.hpp"
#include "jobs/engine_bridge.hpp"
#include "window/exports.hpp"
#include "plots/latency_charts.hpp"
#include "panels/latency_panel.hpp"
#include "plots/miss_chart.hpp"
#include "io/trace_checksum.hpp"
#include "panels/load_panel.hpp"
#include "plots/memory_plot.hpp"
#include "window/policy_controller.hpp"
#include "plots/pressure_plot.hpp"
#include "jobs/run_loader.hpp"
#include "panels/run_panel.hpp"
#include "common/run_setup.hpp"
#include "panels/run_status.hpp"
#include "panels/run_store.hpp"
#include "panels/stats_panel.hpp"
#include "panels/sweep_panel.hpp"

namespace kvscope::ui {
namespace {

// True when the file is a kvscope session (its JSON names "kvscope_session" near the top).
bool looksLikeSession(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return false;
  return f.read(4096).contains("\"kvscope_session\"");
}

}  // namespace

QString MainWindow::askSavePath(const QString& title, const QString& filters, const QString& defaultName) {
  QSettings s;
  const QString dir = s.value(QStringLiteral("files/lastDir"), QDir::homePath()).toString();
  QString selected;
  QString path = QFileDialog::getSaveFileName(this, title, QDir(dir).filePath(defaultName), filters, &selected);
  if (path.isEmpty()) return path;
  if (QFileInfo(path).suffix().isEmpty()) {  // take the extension from the chosen filter
    const qsizetype star = selected.indexOf(QStringLiteral("*."));
    if (star >= 0) path += selected.mid(star + 1, selected.indexOf(QLatin1Char(')'), star) - star - 1);
  }
  if (options_.persistSettings) s.setValue(QStringLiteral("files/lastDir"), QFileInfo(path).absolutePath());
  return path;
}

void MainWindow::report(bool ok, const QString& success, const QString& error) {
  if (ok) {
    if (!success.isEmpty()) statusBar()->showMessage(success, 6000);
    return;
  }
  statusBar()->showMessage(error, 15000);
  // Window-modal but not blocking: the engine keeps running behind it.
  auto* box = new QMessageBox(QMessageBox::Warning, tr("kvscope"), error, QMessageBox::Ok, this);
  box->setObjectName(QStringLiteral("errorBox"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

QString MainWindow::askOpenPath(const QString& title, const QString& filters) {
  QSettings s;
  const QString dir = s.value(QStringLiteral("files/lastDir"), QDir::homePath()).toString();
  const QString path = QFileDialog::getOpenFileName(this, title, dir, filters);
  if (!path.isEmpty() && options_.persistSettings) {
    s.setValue(QStringLiteral("files/lastDir"), QFileInfo(path).absolutePath());
  }
  return path;
}

bool MainWindow::exportPolicyConfig(const QString& path, QString* error) {
  return policy_->exportConfig(path, run_, comparison_->wholeRunWith(policy_->config()), error);
}

bool MainWindow::importPolicyConfig(const QString& path, QString* error) {
  return policy_->importConfig(path, error);
}

bool MainWindow::exportPlot(QWidget* plot, const QString& path, QString* error) {
  // The latency panel exports the plot in view, TTFT/TPOT or misses by cause (goodput and queue
  // are in the summary CSVs).
  const LatencyCharts* latency = latencyPanel_->charts();
  QCustomPlot* custom = plot == pressurePlot_    ? pressurePlot_->customPlot()
                        : plot == memoryPlot_    ? memoryPlot_->customPlot()
                        : plot == latencyPanel_ ? (latency->view() == LatencyCharts::missView ? latency->missChart()->plot()
                                                                                              : latency->latencyPlot())
                                                 : nullptr;
  if (!custom) {
    if (error) *error = tr("no such plot");
    return false;
  }
  return exportPlotFile(custom, path, error);
}

bool MainWindow::exportMetrics(const QString& path, QString* error) {
  const auto snap = bridge_->current();
  std::vector<step_metrics> kept = bridge_->history().recent();
  // The window holds the whole run (steps 0 to now, none missed): written at once.
  if (!snap || kept.empty() || (kept.front().step == 0 && kept.size() == kept.back().step + 1)) {
    QString note;
    if (!exportMetricsCsv(bridge_->history(), path, error, &note)) return false;
    statusBar()->showMessage(tr("Metrics written to %1: %2").arg(path, note), 8000);
    Q_EMIT metricsExported(path, true, note);
    return true;
  }
  // A longer run: its session is run again off the GUI thread for the steps the window let go.
  metricsExport_->start(sessionAt(run_, *snap), std::move(kept), path);
  status_->showProgress(0);
  statusBar()->showMessage(tr("Writing all %1 steps to %2: running the session again (the run goes on "
                              "meanwhile)…").arg(snap->step).arg(path));
  return true;
}

void MainWindow::onMetricsExported(const QString& path, const MetricsExport::Result& r) {
  status_->hideProgress();
  if (r.complete) {
    statusBar()->showMessage(tr("Metrics written to %1: %2").arg(path, r.message), 10000);
  } else {  // dropped steps (or no file at all) are worth a dialog
    report(false, QString(), r.written ? tr("%1 was written with %2.").arg(path, r.message)
                                       : tr("%1: %2").arg(path, r.message));
  }
  Q_EMIT metricsExported(path, r.complete, r.message);
}

bool MainWindow::saveSession(const QString& path, QString* error) {
  const auto snap = bridge_->current();
  if (!snap) {
    if (error) *error = tr("%1: nothing to save yet (no snapshot from the engine)").arg(path);
    return false;
  }
  const auto written = write_session(path.toStdString(), sessionAt(run_, *snap));
  if (!written) {
    if (error) *error = QString::fromStdString(written.error());
    return false;
  }
  return true;
}

bool MainWindow::saveScreenshot(const QString& path, QString* error) {
  const QPixmap shot = grab();
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || !shot.save(&file, "PNG") || !file.commit()) {
    if (error) *error = tr("%1: could not write the screenshot (%2)").arg(path, file.errorString());
    return false;
  }
  return true;
}

quint64 MainWindow::startRun(run_description run, const QString& what) {
  return prepareRun(std::move(run), what, false);
}

quint64 MainWindow::prepareRun(run_description run, const QString& what, bool replay) {
  // A replayed session runs flat out to its saved step (then pauses); anything else at the pace
  // the run panel shows.
  const runner_options options = liveRunnerOptions(replay ? 0.0 : runPanel_->stepsPerSecond());
  loadPanel_->showProgress(0, tr("Preparing %1…").arg(what));
  status_->showProgress(0);
  statusBar()->showMessage(tr("Preparing %1… (the current run goes on meanwhile)").arg(what));
  return loader_->start(std::move(run), options, [this, what, replay](RunLoader::Result&& r) {
    loadPanel_->showProgress(-1, {});
    status_->hideProgress();
    if (!r.feed) {  // the reader's message; the running load is untouched
      loadPanel_->showMessage(r.error, true);
      report(false, QString(), r.error);
      Q_EMIT runFailed(r.error);
      return;
    }
    run_ = std::move(r.run);
    bridge_->setFeed(std::move(r.feed));
    if (replay) runPanel_->setStepsPerSecond(0);
    runPanel_->setSeed(seedOf(run_));
    runPanel_->showEngineState(true);
    loadPanel_->showRun(run_);
    statsPanel_->setMeasuring(run_.options.payload == payload_mode::data);
    showRunDescription();
    const QString done = r.note.isEmpty() ? tr("Running %1").arg(what)
                                          : tr("Running %1 (%2)").arg(what, r.note);
    loadPanel_->showMessage(done, false);
    statusBar()->showMessage(done, 8000);
    if (options_.persistSettings && !isGenerated(run_)) {
      QSettings().setValue(QStringLiteral("files/lastLoad"), QString::fromStdString(run_.load_spec));
    }
    Q_EMIT runStarted(what);
  });
}

quint64 MainWindow::openTrace(const QString& path) {
  // The panel changes only once the trace runs (showRun); until then it shows what runs now.
  return applyLoadPanel(path);
}

quint64 MainWindow::applyLoadPanel() { return applyLoadPanel(QString()); }

quint64 MainWindow::applyLoadPanel(const QString& trace) {
  auto next = loadPanel_->run(run_, trace);
  if (!next) {
    loadPanel_->showMessage(next.error(), true);
    report(false, QString(), next.error());
    Q_EMIT runFailed(next.error());
    return 0;
  }
  next->options.policy = policy_->config();  // the policy as tuned so far carries over
  const QString what = !isGenerated(*next) ? QFileInfo(QString::fromStdString(next->load_spec)).fileName()
                                           : tr("the generated load");
  return startRun(std::move(*next), what);
}

quint64 MainWindow::importSession(const QString& path) {
  auto s = read_session(path.toStdString());
  if (!s) {
    const QString error = QString::fromStdString(s.error());
    loadPanel_->showMessage(error, true);
    report(false, QString(), error);
    Q_EMIT runFailed(error);
    return 0;
  }
  const QString what = tr("session %1").arg(QFileInfo(path).fileName());
  const auto check = check_trace_checksum(*s, path.toStdString());
  if (check.result != trace_check_result::differs) {
    const quint64 id = prepareRun(std::move(*s), what, true);
    if (check.result == trace_check_result::unrecorded) {
      statusBar()->showMessage(QString::fromStdString(check.message), 15000);
    }
    return id;
  }
  // As kvscope-cli replay refuses without --force: the numbers would not be the session's.
  // Window-modal but not blocking, like every other message here.
  auto* box = new QMessageBox(QMessageBox::Warning, tr("The trace has changed"),
                              QString::fromStdString(check.message) +
                                  tr("\n\nA replay would not reproduce the session's numbers."),
                              QMessageBox::Cancel, this);
  box->setObjectName(QStringLiteral("traceChangedBox"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  QPushButton* anyway = box->addButton(tr("Replay anyway"), QMessageBox::AcceptRole);
  connect(anyway, &QPushButton::clicked, this, [this, run = std::move(*s), what]() mutable {
    prepareRun(std::move(run), what, true);
    statusBar()->showMessage(tr("Replaying %1 on a trace that changed since it was recorded").arg(what), 15000);
  });
  box->open();
  return 0;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.isEmpty()) return;
  const QString path = urls.front().toLocalFile();
  const QString suffix = QFileInfo(path).suffix().toLower();
  event->acceptProposedAction();
  if (looksLikeSession(path)) {
    importSession(path);
  } else if (suffix == QLatin1String("toml") || suffix == QLatin1String("json")) {
    QString error;
    report(importPolicyConfig(path, &error), tr("Policy imported from %1").arg(path), error);
  } else {
    openTrace(path);
  }
}

void MainWindow::exportPolicyHonestly(const QString& path) {
  const policy_config config = policy_->config();
  const double share = policy_->governedShare(run_);
  const auto exportNow = [this, path] {
    QString error;
    report(exportPolicyConfig(path, &error), tr("Policy config written to %1").arg(path), error);
  };
  if (comparison_->wholeRunWith(config) || share >= 1) return exportNow();
  const auto answer = QMessageBox::question(
      this, tr("Export the policy config"),
      tr("This config governed %1 % of the live run; other thresholds made the rest. Run the whole "
         "load with it first, so the provenance describes a run made under this config only?")
          .arg(share * 100, 0, 'f', 0),
      QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
  if (answer != QMessageBox::Yes) return exportNow();
  statusBar()->showMessage(tr("Running the whole load with this config before exporting…"));
  comparison_->whenWholeRun(config, exportNow);
}

void MainWindow::exportStored(const QString& id) {
  const QString path = askSavePath(tr("Export the run's session"), tr("kvscope session (*.kvscope.json)"),
                                   QStringLiteral("run.kvscope.json"));
  if (path.isEmpty()) return;
  QString error;
  report(comparison_->runStore()->exportRun(id, path, &error), tr("Session written to %1").arg(path), error);
}

bool MainWindow::openSweep(const QString& path, QString* error) {
  if (!comparison_->sweepPanel()->openFile(path, error)) return false;
  dockNamed("sweepDock")->raise();
  return true;
}

}  // namespace kvscope::ui
