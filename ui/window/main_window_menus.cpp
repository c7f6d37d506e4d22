// MainWindow's menus: File (open, save, import and export), Run, View and Help. What the
// actions do is in main_window_files.cpp and main_window.cpp.
#include "window/main_window.hpp"
#include "window/moments_controller.hpp"

#include <QActionGroup>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>

#include "window/comparison_controller.hpp"
#include "kvscope_version.hpp"
#include "panels/latency_panel.hpp"
#include "plots/memory_plot.hpp"
#include "window/policy_controller.hpp"
#include "plots/pressure_plot.hpp"
#include "panels/run_list_panel.hpp"
#include "panels/run_panel.hpp"
#include "common/run_setup.hpp"
#include "tour/tour_run.hpp"
#include "tour/tour_script.hpp"
#include "window/tour_controller.hpp"

namespace kvscope::ui {

void MainWindow::buildMenus() {
  buildFileMenu();
  buildRunMenu();
  buildViewMenu();
  buildHelpMenu();
}

void MainWindow::buildFileMenu() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  liveActions_ << file->addAction(tr("&Open trace…"), QKeySequence::Open, this, [this] {
    const QString path = askOpenPath(tr("Open a recorded load"),
                                     tr("Traces (*.csv *.jsonl *.json);;All files (*)"));
    if (!path.isEmpty()) openTrace(path);
  });
  auto* reopen = file->addAction(tr("&Reopen the last trace"), this, [this] {
    const QString last = QSettings().value(QStringLiteral("files/lastLoad")).toString();
    if (!last.isEmpty()) openTrace(last);
  });
  // Names the file, and is offered only when there is one (the menu is built each time it opens).
  connect(file, &QMenu::aboutToShow, this, [reopen] {
    const QString last = QSettings().value(QStringLiteral("files/lastLoad")).toString();
    reopen->setVisible(!last.isEmpty() && QFileInfo::exists(last));
    reopen->setText(tr("&Reopen %1").arg(QFileInfo(last).fileName()));
  });
  liveActions_ << reopen << file->addAction(tr("Open &session…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this, [this] {
    const QString path = askOpenPath(tr("Replay a saved session"),
                                     tr("kvscope sessions (*.kvscope.json *.json);;All files (*)"));
    if (!path.isEmpty()) importSession(path);
  });
  liveActions_ << file->addAction(tr("&Save session…"), QKeySequence::Save, this, [this] {
    const QString path = askSavePath(tr("Save the session"), tr("kvscope session (*.kvscope.json)"),
                                     QStringLiteral("session.kvscope.json"));
    if (path.isEmpty()) return;
    QString error;
    report(saveSession(path, &error),
           tr("Session written to %1 — kvscope --session, or kvscope-cli replay --session, replays it")
               .arg(path), error);
  });
  file->addAction(tr("Open s&weep CSV…"), this, [this] {
    const QString path = askOpenPath(tr("Open a sweep CSV (kvscope-cli sweep)"), tr("Sweep CSV (*.csv);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    report(openSweep(path, &error), tr("Sweep opened from %1").arg(path), error);
  });
  file->addSeparator();
  liveActions_ << file->addAction(tr("&Import policy config…"), this, [this] {
    const QString path = askOpenPath(tr("Import a policy config"), tr("Policy configs (*.json *.toml)"));
    if (path.isEmpty()) return;
    QString error;
    report(importPolicyConfig(path, &error), tr("Policy imported from %1").arg(path), error);
  });
  file->addAction(tr("&Export policy config…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, [this] {
    const QString path = askSavePath(tr("Export the policy config"),
                                     tr("JSON (*.json);;TOML (*.toml)"), QStringLiteral("policy.json"));
    if (!path.isEmpty()) exportPolicyHonestly(path);
  });
  file->addAction(tr("Export &metrics CSV…"), this, [this] {
    const QString path = askSavePath(tr("Export per-step metrics"), tr("CSV (*.csv)"),
                                     QStringLiteral("metrics.csv"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportMetrics(path, &error)) report(false, QString(), error);  // else it reports when done
  });
  for (auto [label, plot, name] :
       {std::tuple{tr("Export pressure plot…"), static_cast<QWidget*>(pressurePlot_), "pressure"},
        std::tuple{tr("Export memory plot…"), static_cast<QWidget*>(memoryPlot_), "memory"},
        std::tuple{tr("Export latency plot…"), static_cast<QWidget*>(latencyPanel_), "latency"}}) {
    file->addAction(label, this, [this, plot, name] {
      const QString path = askSavePath(tr("Export the plot"), tr("PNG image (*.png);;PDF (*.pdf)"),
                                       QStringLiteral("%1.png").arg(QString::fromLatin1(name)));
      if (path.isEmpty()) return;
      QString error;
      report(exportPlot(plot, path, &error), tr("Plot written to %1").arg(path), error);
    });
  }
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
}

void MainWindow::buildRunMenu() {
  QMenu* run = menuBar()->addMenu(tr("&Run"));
  auto* play = run->addAction(tr("Play / pause"), QKeySequence(Qt::Key_Space), runPanel_, &RunPanel::togglePlay);
  auto* step = run->addAction(tr("Step"), QKeySequence(Qt::Key_N), runPanel_, &RunPanel::stepOnce);
  auto* reset = run->addAction(tr("Reset"), QKeySequence(Qt::CTRL | Qt::Key_R), runPanel_, &RunPanel::reset);
  liveActions_ << play << step << reset << run->addAction(tr("Restart the built-in demo"), this, [this] {
    run_description demo = demoSession();
    demo.options.policy = policy_->config();
    runPanel_->setStepsPerSecond(demoStepsPerSecond);
    startRun(demo, tr("the built-in demo"));
  });
  for (QAction* a : {play, step}) a->setShortcutContext(Qt::WindowShortcut);
  liveActions_ << run->addMenu(moments_->menu());
  run->addSeparator();
  liveActions_ << run->addAction(tr("&Apply the what-if"), QKeySequence(Qt::CTRL | Qt::Key_Return),
                                 comparison_, &ComparisonController::applyWhatIf);
  run->addAction(tr("Pin the selected run as &baseline"), QKeySequence(Qt::CTRL | Qt::Key_B),
                 comparison_->runList(), &RunListPanel::pinBaseline);
}

void MainWindow::buildViewMenu() {
  QMenu* view = menuBar()->addMenu(tr("&View"));
  auto* modes = new QActionGroup(this);
  byPrecision_ = view->addAction(tr("Colour blocks by &precision"));
  bySequence_ = view->addAction(tr("Colour blocks by &sequence"));
  byPrecision_->setShortcut(QKeySequence(Qt::Key_P));
  bySequence_->setShortcut(QKeySequence(Qt::Key_S));
  for (QAction* a : {byPrecision_, bySequence_}) {
    a->setCheckable(true);
    modes->addAction(a);
  }
  byPrecision_->setChecked(true);
  connect(byPrecision_, &QAction::triggered, this, [this] { setBlockColorMode(BlockColorMode::byPrecision); });
  connect(bySequence_, &QAction::triggered, this, [this] { setBlockColorMode(BlockColorMode::bySequence); });
  view->addSeparator();
  darkAction_ = view->addAction(tr("&Dark theme"));
  darkAction_->setCheckable(true);
  connect(darkAction_, &QAction::toggled, this, &MainWindow::setDarkTheme);
  view->addSeparator();
  for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());
  view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);
}

void MainWindow::buildHelpMenu() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("What am I looking at?"), QKeySequence::HelpContents, this, [this] {
    QMessageBox::information(
        this, tr("What am I looking at?"),
        tr("<p>An LLM keeps the keys and values (KV) of every token it has seen. kvscope shows that "
           "<b>KV cache</b> as vLLM's PagedAttention lays it out: a pool of fixed-size blocks, handed "
           "to sequences one block at a time through a per-sequence <b>block table</b>.</p>"
           "<p>When memory runs short, a <b>policy</b> watches the pressure (bytes used / budget), "
           "smooths it (EWMA) and, past its thresholds, stores older blocks in 8 or 4 bits. The "
           "hysteresis band keeps it from flapping. Move the sliders and watch the lines, the "
           "levels and the block map respond.</p>"
           "<p>Everything you see is the real engine: a vLLM-style scheduler (continuous "
           "batching, chunked prefill, preemption, prefix caching) over a paged pool whose blocks "
           "hold real K/V bytes that are really quantized; the error table is measured on them. "
           "The built-in demo is a generated load on a tiny model in 16 MiB whose pressure climbs "
           "through both thresholds and falls back within the first minute. Open a trace (Ctrl+O) "
           "or change the load in the <b>Setup</b> panel.</p>"));
  });
  help->addAction(tr("&Guided tour of the KV cache"), this, [this] { openTour(); })
      ->setToolTip(tr("Thirteen steps through a paged KV cache: blocks, sharing, compression, "
                      "preemption, the prefix cache (also: kvscope --tour)"));
  help->addAction(tr("About kvscope"), this, [this] {
    QMessageBox::about(this, tr("About kvscope"),
                       tr("kvscope %1 — see, explain and tune the memory of an LLM KV cache.")
                           .arg(QString::fromLatin1(version_string)));
  });
}

MainWindow* MainWindow::openTour() {
  auto run = run_tour(builtin_tour());
  if (!run) {
    QMessageBox::warning(this, tr("Guided tour"), QString::fromStdString(run.error()));
    return nullptr;
  }
  auto tour = openTourWindow(std::make_shared<const tour_run>(std::move(*run)), Options{});
  MainWindow* window = tour.window.release();
  // A window of its own, owned by this one: gone when it is closed, or when this one goes.
  window->setParent(this, Qt::Window);
  window->setAttribute(Qt::WA_DeleteOnClose);
  window->show();
  return window;
}

}  // namespace kvscope::ui
