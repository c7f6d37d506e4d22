// MainWindow's layout: the docks and where they go (the comparisons' views among them, made
// by their controller), the window's size on the screen it opens on (a 1366×768 laptop
// included), and the geometry and dock layout kept between sessions. The widgets and live
// updates are in main_window.cpp.
#include "window/main_window.hpp"

#include <QCloseEvent>
#include <QDockWidget>
#include <QGuiApplication>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>

#include <algorithm>

#include "plots/block_map_widget.hpp"
#include "panels/block_table_panel.hpp"
#include "window/comparison_controller.hpp"
#include "panels/compare_panel.hpp"
#include "jobs/engine_bridge.hpp"
#include "plots/latency_charts.hpp"
#include "panels/latency_panel.hpp"
#include "panels/load_panel.hpp"
#include "plots/memory_plot.hpp"
#include "window/moments_controller.hpp"
#include "window/policy_controller.hpp"
#include "panels/policy_panel.hpp"
#include "plots/pressure_plot.hpp"
#include "panels/run_list_panel.hpp"
#include "panels/run_panel.hpp"
#include "common/run_setup.hpp"
#include "panels/run_store.hpp"
#include "panels/stats_panel.hpp"
#include "panels/sweep_panel.hpp"

namespace kvscope::ui {
namespace {

// The dock layout's version in the settings: a layout saved by an older kvscope, whose docks
// were placed differently, is dropped for the default one.
constexpr int layoutVersion = 5;  // 4: the sweep dock; 5: the latency dock

QScrollArea* scrollable(QWidget* panel) {
  auto* area = new QScrollArea;
  area->setObjectName(panel->objectName() + QStringLiteral("Scroll"));
  area->setWidget(panel);
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  return area;
}

}  // namespace

void MainWindow::placeWindow() {
  setDefaultLayout();
  // Only a real screen is fitted: the offscreen platform's is a nominal 800×600, and
  // screenshots made there keep the default size.
  const QString platform = QGuiApplication::platformName();
  if (platform != QLatin1String("offscreen") && platform != QLatin1String("minimal") && screen()) {
    fitTo(screen()->availableGeometry());
  }
  defaultState_ = saveState(layoutVersion);
}

void MainWindow::buildDocks() {
  // The side column runs the full height, beside the plots: the block table needs the rows.
  setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  setDockNestingEnabled(true);
  // Panels scroll inside their dock rather than set its least height: on a 768-pixel screen
  // the column is shorter than its panels, and every control stays reachable.
  const auto dock = [this](const QString& title, const char* name, QWidget* w, Qt::DockWidgetArea area,
                           bool scroll) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(QString::fromLatin1(name));
    d->setWidget(scroll ? scrollable(w) : w);
    addDockWidget(area, d);
    return d;
  };
  blockTable_ = new BlockTablePanel;
  runPanel_ = new RunPanel;
  policyPanel_ = new PolicyPanel;
  statsPanel_ = new StatsPanel;
  loadPanel_ = new LoadPanel;  // scrolls its settings itself, its buttons stay in view
  pressurePlot_ = new PressurePlot;
  memoryPlot_ = new MemoryPlot;
  pressurePlot_->setHistory(&bridge_->history());  // one history for the plots and the CSV
  memoryPlot_->setHistory(&bridge_->history());
  latencyPanel_ = new LatencyPanel;
  latencyPanel_->setHistory(&bridge_->history());
  // The side column's four tabs share about 360 pixels on a 1366-pixel screen: one-word names
  // stay whole there (each tab's tooltip is its name too).
  auto* run = dock(tr("Run"), "runDock", runPanel_, Qt::RightDockWidgetArea, true);
  auto* policy = dock(tr("Policy (applies live)"), "policyDock", policyPanel_, Qt::RightDockWidgetArea, true);
  auto* stats = dock(tr("Stats"), "statsDock", statsPanel_, Qt::RightDockWidgetArea, true);
  auto* table = dock(tr("Blocks"), "blockTableDock", blockTable_, Qt::RightDockWidgetArea, true);
  auto* load = dock(tr("Setup"), "loadDock", loadPanel_, Qt::RightDockWidgetArea, false);
  buildControllers();
  auto* compare =
      dock(tr("Compare"), "compareDock", comparison_->comparePanel(), Qt::RightDockWidgetArea, false);
  // The run list is a wide table: beside the plots, not in the narrow column.
  auto* runs = dock(tr("Runs"), "runsDock", comparison_->runList(), Qt::BottomDockWidgetArea, false);
  splitDockWidget(run, policy, Qt::Vertical);
  splitDockWidget(policy, stats, Qt::Vertical);
  tabifyDockWidget(stats, table);
  tabifyDockWidget(table, load);
  tabifyDockWidget(load, compare);
  stats->raise();
  // Picking a sequence in the map brings its block table to the front.
  connect(blockMap_, &BlockMapWidget::sequenceSelected, table, [table](sequence_id id) {
    if (id != no_sequence) table->raise();
  });
  auto* pressure = dock(tr("Pressure, thresholds and level"), "pressureDock", pressurePlot_,
                        Qt::BottomDockWidgetArea, false);
  auto* memory = dock(tr("Memory by precision"), "memoryDock", memoryPlot_, Qt::BottomDockWidgetArea, false);
  auto* latency = dock(tr("Latency and goodput"), "latencyDock", latencyPanel_, Qt::BottomDockWidgetArea, false);
  splitDockWidget(pressure, memory, Qt::Horizontal);
  tabifyDockWidget(memory, latency);
  tabifyDockWidget(latency, runs);
  // Sweeps are wide scatters too: a tab beside the run list.
  tabifyDockWidget(runs,
                   dock(tr("Sweep"), "sweepDock", comparison_->sweepPanel(), Qt::BottomDockWidgetArea, false));
  memory->raise();
}

void MainWindow::buildControllers() {
  policy_ = new PolicyController(policyPanel_, pressurePlot_, bridge_, this);
  const ComparisonController::Views views{pressurePlot_, memoryPlot_, latencyPanel_, loadPanel_->engineBox()};
  comparison_ = new ComparisonController(run_, views, policy_, options_.runsDirectory, this);
  moments_ = new MomentsController(bridge_, runPanel_, policy_, this);
  moments_->shareRunsWith(comparison_->whatIf());
  moments_->setRun(run_);
  connect(this, &MainWindow::runStarted, moments_, [this] { moments_->setRun(run_); });
  // A moment behind the live view: the same reset as the run panel's, the policy kept.
  connect(moments_, &MomentsController::restartRequested, this, [this] { resetRun(seedOf(run_)); });
  connect(moments_, &MomentsController::statusMessage, this,
          [this](const QString& text, int timeoutMs) { statusBar()->showMessage(text, timeoutMs); });
}

void MainWindow::wireComparison() {
  connect(comparison_, &ComparisonController::raiseRequested, this,
          [this](const QString& name) { findChild<QDockWidget*>(name)->raise(); });
  connect(comparison_, &ComparisonController::statusMessage, this,
          [this](const QString& text, int timeoutMs) { statusBar()->showMessage(text, timeoutMs); });
  connect(comparison_, &ComparisonController::reported, this, &MainWindow::report);
  connect(comparison_, &ComparisonController::runRequested, this,
          [this](const run_description& run, const QString& what) { startRun(run, what); });
  connect(this, &MainWindow::runStarted, comparison_, [this] { comparison_->setRun(run_); });
  connect(comparison_->runList(), &RunListPanel::openRequested, this,
          [this](const QString& id) { importSession(comparison_->runStore()->sessionPath(id)); });
  connect(comparison_->runList(), &RunListPanel::exportRequested, this, &MainWindow::exportStored);
}

QDockWidget* MainWindow::dockNamed(const char* name) const {
  return findChild<QDockWidget*>(QString::fromLatin1(name));
}

bool MainWindow::raiseDock(const QString& name) {
  // "why": the latency dock in its why-missed view, for a screenshot of it.
  const bool why = name == QStringLiteral("why");
  if (why) latencyPanel_->charts()->setView(LatencyCharts::missView);
  auto* dock = findChild<QDockWidget*>((why ? QStringLiteral("latency") : name) + QStringLiteral("Dock"));
  if (!dock) return false;
  dock->show();
  dock->raise();
  return true;
}

void MainWindow::setDefaultLayout() {
  resize(1600, 1000);
  placeDocks();
}

void MainWindow::placeDocks() {
  // Shares of the window rather than fixed sizes, so a laptop screen gets the same layout.
  const int side = std::clamp(width() * 27 / 100, 340, 420);
  resizeDocks({dockNamed("runDock")}, {side}, Qt::Horizontal);
  // The run and policy panels at their natural height, the tabs below them take the rest.
  // (Heights for the column's width: a wrapped summary is shorter than its size hint says.)
  const auto natural = [side](QWidget* w) {
    return w->hasHeightForWidth() ? w->heightForWidth(side - 16) : w->sizeHint().height();
  };
  const int run = natural(runPanel_), policy = natural(policyPanel_);
  resizeDocks({dockNamed("runDock"), dockNamed("policyDock"), dockNamed("statsDock")},
              {run, policy, std::max(120, height() - run - policy - 160)}, Qt::Vertical);
  // The plots' share grows on a short screen: at 768 pixels 38 % leaves each latency chart
  // about 100 pixels, while the block map's squares only get smaller.
  resizeDocks({dockNamed("pressureDock")}, {height() * (height() < 900 ? 50 : 38) / 100}, Qt::Vertical);
  const int plots = width() - side;
  resizeDocks({dockNamed("pressureDock"), dockNamed("memoryDock")}, {plots * 55 / 100, plots * 45 / 100},
              Qt::Horizontal);
}

void MainWindow::fitTo(const QRect& available) {
  // Room for a title bar and borders, which are not known before the window is shown. The
  // first start takes the whole screen: on 1920×1080 a 1600×1000 window left the column's
  // tabs with empty space under them and the plots smaller than they need be.
  const QSize frame(8, 32);
  const QSize size = (available.size() - frame).expandedTo(minimumSizeHint());
  resize(size);
  move(available.left() + std::max(0, (available.width() - size.width() - frame.width()) / 2),
       available.top() + std::max(0, (available.height() - size.height() - frame.height()) / 2));
  placeDocks();
}

void MainWindow::restoreSettings() {
  QSettings s;
  // restoreGeometry keeps the window on a screen that is there now, and within its size.
  restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(s.value(QStringLiteral("window/state")).toByteArray(), layoutVersion);
  theme_ = s.value(QStringLiteral("view/dark"), false).toBool() ? &kvscope::ui::darkTheme() : &lightTheme();
  darkAction_->setChecked(theme_->dark);
  if (s.value(QStringLiteral("view/bySequence"), false).toBool()) setBlockColorMode(BlockColorMode::bySequence);
}

void MainWindow::resetLayout() {
  restoreState(defaultState_, layoutVersion);
  placeDocks();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (options_.persistSettings) {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState(layoutVersion));
    s.setValue(QStringLiteral("view/dark"), theme_->dark);
    s.setValue(QStringLiteral("view/bySequence"), blockMap_->colorMode() == BlockColorMode::bySequence);
  }
  QMainWindow::closeEvent(event);
}

}  // namespace kvscope::ui
