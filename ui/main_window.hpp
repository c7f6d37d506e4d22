#pragma once
// The desktop app's window: the block map in the middle, docks around it (block table, policy,
// run controls, statistics, pressure and memory plots), menus with exports, and a status bar.
// It owns the EngineBridge (and through it the engine_feed) and wires widgets to it.
#include <QMainWindow>

#include <functional>
#include <memory>
#include <string>

#include "engine/commands.hpp"
#include "block_map_render.hpp"
#include "meta_types.hpp"
#include "theme.hpp"
#include "util/expected.hpp"

class QLabel;
class QAction;
class QActionGroup;
class QToolButton;

namespace kvscope::ui {

class BlockMapWidget;
class BlockTablePanel;
class ColorLegend;
class EngineBridge;
class MemoryPlot;
class PolicyPanel;
class PressurePlot;
class RunPanel;
class StatsPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  struct Options {
    bool persistSettings = true;  // restore and save geometry, dock layout, theme (QSettings)
    QString loadDescription;      // for exported provenance: what load the engine runs
    QString model;                // model preset name, likewise
    int pollIntervalMs = 33;      // ~30 fps
    // Opens a recorded load and returns the feed that runs it, or the reader's message. Unset:
    // the window says loads cannot be opened. (main() sets it once the engine runner exists.)
    std::function<expected<std::unique_ptr<engine_feed>, std::string>(const QString& path)> openLoad;
    // Writes a session that replays exactly (core's session file); unset: the window writes its
    // own record (policy, seed and the commands it posted).
    std::function<expected<void, std::string>(const QString& path, const engine_snapshot& latest)> saveSession;
  };

  explicit MainWindow(std::unique_ptr<engine_feed> feed, Options options, QWidget* parent = nullptr);
  ~MainWindow() override;

  EngineBridge* bridge() const { return bridge_; }
  BlockMapWidget* blockMap() const { return blockMap_; }
  PolicyPanel* policyPanel() const { return policyPanel_; }
  PressurePlot* pressurePlot() const { return pressurePlot_; }
  MemoryPlot* memoryPlot() const { return memoryPlot_; }
  RunPanel* runPanel() const { return runPanel_; }
  StatsPanel* statsPanel() const { return statsPanel_; }
  BlockTablePanel* blockTablePanel() const { return blockTable_; }

  // Each returns false with a message naming the file on failure. No dialogs: the menu actions
  // ask for the path and call these.
  bool exportPolicyConfig(const QString& path, QString* error);
  bool importPolicyConfig(const QString& path, QString* error);
  bool exportPlot(QWidget* plot, const QString& path, QString* error);  // .png or .pdf
  bool saveSession(const QString& path, QString* error);
  bool saveScreenshot(const QString& path, QString* error);
  // Opens a recorded load through Options::openLoad; on failure the current load keeps running
  // and nothing changes.
  bool openLoad(const QString& path, QString* error);

  void setDarkTheme(bool dark);
  void setBlockColorMode(BlockColorMode mode);
  bool isDarkTheme() const { return theme_->dark; }

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildCentral();
  void buildDocks();
  void buildMenus();
  void buildStatusBar();
  void wire();
  void restoreSettings();
  void onSnapshot(const SnapshotPtr& snapshot);
  void onMetrics(const MetricsPtr& metrics);
  void onHistoryReset();
  void updateMapHeader(const SnapshotPtr& snapshot);
  void updateSelectionHint(sequence_id id);
  void applyTheme();
  QString askSavePath(const QString& title, const QString& filters, const QString& defaultName);
  void report(bool ok, const QString& success, const QString& error);

  Options options_;
  const Theme* theme_ = &lightTheme();
  EngineBridge* bridge_ = nullptr;
  BlockMapWidget* blockMap_ = nullptr;
  BlockTablePanel* blockTable_ = nullptr;
  PolicyPanel* policyPanel_ = nullptr;
  PressurePlot* pressurePlot_ = nullptr;
  MemoryPlot* memoryPlot_ = nullptr;
  RunPanel* runPanel_ = nullptr;
  StatsPanel* statsPanel_ = nullptr;
  ColorLegend* mapLegend_ = nullptr;
  QLabel* mapTitle_ = nullptr;
  QLabel* mapHint_ = nullptr;
  QAction* byPrecision_ = nullptr;
  QToolButton* precisionButton_ = nullptr;
  QToolButton* sequenceButton_ = nullptr;
  QAction* bySequence_ = nullptr;
  QAction* darkAction_ = nullptr;
  QLabel* stepLabel_ = nullptr;
  QLabel* timeLabel_ = nullptr;
  QLabel* pressureLabel_ = nullptr;
  QLabel* levelLabel_ = nullptr;
  QLabel* queueLabel_ = nullptr;
  QLabel* feedLabel_ = nullptr;

  // Run totals for the provenance of an exported config.
  struct Totals {
    std::uint64_t steps = 0;
    double usageSum = 0, usagePeak = 0, savingSum = 0;
  } totals_;
  SnapshotPtr lastShown_;
};

}  // namespace kvscope::ui
