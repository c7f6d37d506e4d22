#pragma once
// The desktop app's window: the block map in the middle, docks around it (block table, policy,
// run controls, load, statistics, pressure and memory plots), menus with exports, and a status
// bar. It owns the EngineBridge (and through it the runner) and arranges the views around it;
// the policy's path (PolicyController) and the comparisons (ComparisonController) are wired in
// their own controllers. A new load, a new seed or an imported session is prepared off the GUI
// thread (RunLoader) and swapped in when ready; until then, and for good if it fails, the
// current run keeps going.
#include <QMainWindow>

#include <memory>

#include "plots/block_map_render.hpp"
#include "run/commands.hpp"
#include "io/session_file.hpp"
#include "common/meta_types.hpp"
#include "jobs/metrics_export.hpp"
#include "common/theme.hpp"

class QLabel;
class QAction;
class QDockWidget;
class QTimer;
class QToolButton;

namespace kvscope::ui {

class BlockMapWidget;
class RunStatus;
class BlockTablePanel;
class ColorLegend;
class ComparisonController;
class EngineBridge;
class LatencyPanel;
class LiveLabel;
class LoadPanel;
class MemoryPlot;
class MomentsController;
class PolicyController;
class PolicyPanel;
class PressurePlot;
class RunLoader;
class RunPanel;
class StatsPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  struct Options {
    bool persistSettings = true;  // restore and save geometry, dock layout, theme (QSettings)
    int pollIntervalMs = 33;      // ~30 fps
    QString runsDirectory;        // where finished runs are kept; "" = the app data folder
  };

  // `feed` runs `run` (a runner made by makeRunner(run, ...)); `stepsPerSecond` is its pace.
  MainWindow(std::unique_ptr<engine_feed> feed, run_description run, double stepsPerSecond, Options options,
             QWidget* parent = nullptr);
  ~MainWindow() override;

  EngineBridge* bridge() const { return bridge_; }
  RunLoader* loader() const { return loader_; }
  BlockMapWidget* blockMap() const { return blockMap_; }
  PolicyPanel* policyPanel() const { return policyPanel_; }
  PressurePlot* pressurePlot() const { return pressurePlot_; }
  MemoryPlot* memoryPlot() const { return memoryPlot_; }
  LatencyPanel* latencyPanel() const { return latencyPanel_; }
  RunPanel* runPanel() const { return runPanel_; }
  LoadPanel* loadPanel() const { return loadPanel_; }
  StatsPanel* statsPanel() const { return statsPanel_; }
  BlockTablePanel* blockTablePanel() const { return blockTable_; }
  PolicyController* policy() const { return policy_; }
  ComparisonController* comparison() const { return comparison_; }
  MomentsController* moments() const { return moments_; }
  // What runs now, as it was started (its command log is in the snapshots).
  const run_description& currentRun() const { return run_; }

  // Each returns false with a message naming the file on failure. No dialogs: the menu actions
  // ask for the path and call these.
  // Its provenance describes a whole run of this config when there is one (the current run or
  // the what-if), else the live run with the share of it this config governed.
  bool exportPolicyConfig(const QString& path, QString* error);
  // The menu's export: when the config did not govern the whole live run, offers to run the
  // whole load with it first and exports once that is done.
  void exportPolicyHonestly(const QString& path);
  bool importPolicyConfig(const QString& path, QString* error);
  bool exportPlot(QWidget* plot, const QString& path, QString* error);  // .png or .pdf
  // CSV of every step: at once when the window holds the whole run, else (a run longer than
  // the 65,536 steps it keeps) by running the session again in the background; either way
  // metricsExported follows, saying what was written.
  bool exportMetrics(const QString& path, QString* error);
  bool saveSession(const QString& path, QString* error);
  bool saveScreenshot(const QString& path, QString* error);
  // A sweep CSV (kvscope-cli sweep) into the sweep view, which comes to the front.
  bool openSweep(const QString& path, QString* error);

  // Start preparing a new run off the GUI thread and return the job id, or 0 when it is refused
  // at once (then runFailed has been emitted). The current run goes on until the new one is
  // ready (runStarted) and stays if it cannot run (runFailed with the reader's message).
  quint64 startRun(run_description run, const QString& what);
  // A trace with the load panel's model, budget and payload, and the policy as it is now.
  quint64 openTrace(const QString& path);
  // The load panel's settings.
  quint64 applyLoadPanel();
  // A saved session, replayed as fast as possible to its saved step, where it pauses. If its
  // trace changed since it was recorded, asks first (a "traceChangedBox") and returns 0; the
  // replay starts only when the user chooses "Replay anyway".
  quint64 importSession(const QString& path);
  // Reset: the same run from step 0 (keeping the policy as it is now), or with another seed a
  // new run from that seed.
  void resetRun(std::uint64_t seed);

  // A tour drives the feed: controls that start another run or command the engine are
  // hidden or disabled (run and load docks, the policy sliders, the Run menu, File > Open…).
  void setTourMode(bool on);

  // Sizes the window to fit `available` (a screen's available geometry), title bar included,
  // and shares it out between the docks. The constructor does this for the window's screen.
  void fitTo(const QRect& available);
  // The docks where they start, sized for the window as it is now (View > Reset layout).
  void resetLayout();
  // Help > Guided tour: the built-in tour in a window of its own (closed with this one); nullptr
  // with a message when it cannot run.
  MainWindow* openTour();

  void setDarkTheme(bool dark);
  void setBlockColorMode(BlockColorMode mode);
  // Brings the dock named `name` (its object name without "Dock": "latency", "memory",
  // "stats", …; "why": latency in its why-missed view) to the front of its tabs; false when
  // there is none.
  bool raiseDock(const QString& name);
  bool isDarkTheme() const { return theme_->dark; }

 Q_SIGNALS:
  // `complete`: every step of the run is in the file; else `message` says which are not.
  void metricsExported(const QString& path, bool complete, const QString& message);
  void runStarted(const QString& what);
  void runFailed(const QString& error);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  quint64 prepareRun(run_description run, const QString& what, bool replay);
  quint64 applyLoadPanel(const QString& trace);  // a non-empty trace: that file
  void buildCentral();
  void buildDocks();
  QDockWidget* dockNamed(const char* name) const;
  void placeWindow();  // default layout, fitted to the screen (main_window_layout.cpp)
  void setDefaultLayout();
  void placeDocks();
  void buildMenus();  // the four below, in menu-bar order
  void buildFileMenu();
  void buildRunMenu();
  void buildViewMenu();
  void buildHelpMenu();
  void wire();
  void buildControllers();  // the policy's path and the comparisons, before their docks
  void wireComparison();    // what the comparisons ask of the window
  void exportStored(const QString& id);
  void restoreSettings();
  void onSnapshot(const SnapshotPtr& snapshot);
  void showNumbers(const SnapshotPtr& snapshot);
  void onMetrics(const MetricsPtr& metrics);
  void onHistoryReset();
  void onMetricsExported(const QString& path, const MetricsExport::Result& result);
  void updateMapHeader(const SnapshotPtr& snapshot);
  void updateSelectionHint(sequence_id id);
  void showRunDescription();
  void applyTheme();
  QString askSavePath(const QString& title, const QString& filters, const QString& defaultName);
  QString askOpenPath(const QString& title, const QString& filters);
  void report(bool ok, const QString& success, const QString& error);

  Options options_;
  run_description run_;
  const Theme* theme_ = &lightTheme();
  EngineBridge* bridge_ = nullptr;
  RunLoader* loader_ = nullptr;
  MetricsExport* metricsExport_ = nullptr;
  BlockMapWidget* blockMap_ = nullptr;
  BlockTablePanel* blockTable_ = nullptr;
  PolicyPanel* policyPanel_ = nullptr;
  PressurePlot* pressurePlot_ = nullptr;
  MemoryPlot* memoryPlot_ = nullptr;
  LatencyPanel* latencyPanel_ = nullptr;
  RunPanel* runPanel_ = nullptr;
  LoadPanel* loadPanel_ = nullptr;
  StatsPanel* statsPanel_ = nullptr;
  PolicyController* policy_ = nullptr;
  ComparisonController* comparison_ = nullptr;
  MomentsController* moments_ = nullptr;  // the Jump to menu
  ColorLegend* mapLegend_ = nullptr;
  LiveLabel* mapDetails_ = nullptr;  // frames, budget, use: beside the map's title
  QLabel* mapHint_ = nullptr;
  QLabel* mapExplain_ = nullptr;
  QAction* byPrecision_ = nullptr;
  QToolButton* precisionButton_ = nullptr;
  QToolButton* sequenceButton_ = nullptr;
  QAction* bySequence_ = nullptr;
  QAction* darkAction_ = nullptr;
  QList<QAction*> liveActions_;  // what a tour disables
  RunStatus* status_ = nullptr;  // the status bar's permanent part
  QByteArray defaultState_;  // the docks as built, for View > Reset layout
  SnapshotPtr lastShown_;
  SnapshotPtr numbersShown_;       // what the numbers, donut and block table show
  QTimer* numbersTimer_ = nullptr;  // spaces their updates (see onSnapshot)
  bool announcedEnd_ = false;  // the "load is over" message was shown for this run
  std::uint64_t rejectionsAnnounced_ = 0;  // rejections the status bar has told of
};

}  // namespace kvscope::ui
