#include "window/main_window.hpp"

#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <climits>

#include "common/qcustomplot_include.hpp"

#include "plots/block_map_widget.hpp"
#include "panels/block_table_panel.hpp"
#include "panels/compare_panel.hpp"
#include "window/comparison_controller.hpp"
#include "jobs/engine_bridge.hpp"
#include "common/level_legend.hpp"
#include "common/live_label.hpp"
#include "panels/load_panel.hpp"
#include "panels/latency_panel.hpp"
#include "plots/memory_plot.hpp"
#include "window/moments_controller.hpp"
#include "window/policy_controller.hpp"
#include "panels/policy_panel.hpp"
#include "plots/pressure_plot.hpp"
#include "jobs/run_loader.hpp"
#include "panels/run_panel.hpp"
#include "common/run_setup.hpp"
#include "panels/run_status.hpp"
#include "panels/stats_panel.hpp"
#include "panels/sweep_panel.hpp"
#include "util/byte_size.hpp"
#include "window/whatif_controller.hpp"
#include "common/wheel_guard.hpp"

namespace kvscope::ui {
namespace {


// A short name for a run: the trace's file name, or the demo / a generated load.
QString describe(const run_description& s) {
  if (s.load_spec == demoLoadSpec) return QObject::tr("built-in demo load");
  if (isGenerated(s)) return QObject::tr("generated load");
  return QFileInfo(QString::fromStdString(s.load_spec)).fileName();
}


}  // namespace

MainWindow::MainWindow(std::unique_ptr<engine_feed> feed, run_description run, double stepsPerSecond,
                       Options options, QWidget* parent)
    : QMainWindow(parent), options_(options), run_(std::move(run)) {
  setWindowTitle(tr("kvscope — paged KV cache with precision tiers"));
  setWindowIcon(QIcon(QStringLiteral(":/kvscope/kvscope.png")));
  setObjectName(QStringLiteral("mainWindow"));
  setAcceptDrops(true);
  bridge_ = new EngineBridge(std::move(feed), this);
  loader_ = new RunLoader(this);
  metricsExport_ = new MetricsExport(this);
  buildCentral();
  buildDocks();
  buildMenus();
  status_ = new RunStatus(statusBar(), this);
  wire();
  wireComparison();
  WheelGuard::guard(this);
  placeWindow();
  runPanel_->setStepsPerSecond(stepsPerSecond);
  runPanel_->setSeed(seedOf(run_));
  loadPanel_->showRun(run_);
  statsPanel_->setMeasuring(run_.options.payload == payload_mode::data);
  showRunDescription();
  if (options_.persistSettings) restoreSettings();
  applyTheme();
  bridge_->poll();
  bridge_->start(options_.pollIntervalMs);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildCentral() {
  auto* central = new QWidget;
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(8, 6, 8, 4);
  layout->setSpacing(4);
  auto* titleRow = new QHBoxLayout;
  auto* title = new QLabel(tr("<span style='font-size:large'><b>KV block pool</b></span>"));
  mapDetails_ = new LiveLabel;
  mapDetails_->setObjectName(QStringLiteral("mapDetails"));
  mapDetails_->setElidable(true);
  mapDetails_->setToolTip(tr("Frames in the pool, the size of one, the budget and the model; how "
                             "many frames hold a block a sequence uses, how many hold only cached prefix "
                             "blocks (evicted on demand: free to the pressure), and how many sequences run"));
  titleRow->addWidget(title);
  titleRow->addWidget(mapDetails_, 1);
  mapExplain_ = new QLabel;  // its text names the block size: showRunDescription()
  mapExplain_->setWordWrap(true);
  mapExplain_->setTextFormat(Qt::RichText);
  auto* legendRow = new QHBoxLayout;
  mapLegend_ = new ColorLegend;
  legendRow->addWidget(mapLegend_);
  legendRow->addStretch();
  legendRow->addWidget(new QLabel(tr("colour by")));
  precisionButton_ = new QToolButton;
  sequenceButton_ = new QToolButton;
  precisionButton_->setText(tr("precision"));
  sequenceButton_->setText(tr("sequence"));
  precisionButton_->setToolTip(tr("Colour blocks by how they are stored: fp16, q8, fp8, q4 (P)"));
  sequenceButton_->setToolTip(tr("Colour blocks by the sequence that owns them (S)"));
  for (QToolButton* b : {precisionButton_, sequenceButton_}) {
    b->setCheckable(true);
    b->setAutoRaise(false);
    legendRow->addWidget(b);
  }
  precisionButton_->setChecked(true);
  connect(precisionButton_, &QToolButton::clicked, this, [this] { setBlockColorMode(BlockColorMode::byPrecision); });
  connect(sequenceButton_, &QToolButton::clicked, this, [this] { setBlockColorMode(BlockColorMode::bySequence); });
  mapHint_ = new QLabel;
  mapHint_->setTextFormat(Qt::RichText);
  mapHint_->setWordWrap(true);
  blockMap_ = new BlockMapWidget;
  layout->addLayout(titleRow);
  layout->addWidget(mapExplain_);
  layout->addLayout(legendRow);
  layout->addWidget(blockMap_, 1);
  layout->addWidget(mapHint_);
  setCentralWidget(central);
  updateSelectionHint(no_sequence);
}

void MainWindow::showRunDescription() {
  mapExplain_->setText(tr(
      "Each square is a <b>frame</b>: the memory of one fp16 block of %1 tokens. Under pressure the "
      "policy stores older (“cold”) blocks more compactly, so a frame holds <b>two</b> 8-bit blocks "
      "(halves), <b>four</b> 4-bit blocks (quarters) or, at kvscope's own level q3, <b>five</b> 3-bit "
      "blocks. The pale top of a block is room for tokens "
      "not yet written. Hover for details; <b>click a block</b> to follow its sequence.").arg(run_.options.block_size));
  const QString model = QString::fromStdString(run_.options.model);
  const QString budget = QString::fromStdString(budgetLabel(run_.options));
  status_->showRun(tr("%1 · %2 · %3 · %4")
                       .arg(describe(run_), model, budget,
                            run_.options.payload == payload_mode::data ? tr("data") : tr("accounting")),
                   tr("Load: %1\nSame run headless: %2")
                       .arg(QString::fromStdString(run_.load_spec), QString::fromStdString(cliEquivalent(run_))));
}

void MainWindow::wire() {
  numbersTimer_ = new QTimer(this);
  numbersTimer_->setSingleShot(true);
  numbersTimer_->setInterval(200);
  connect(numbersTimer_, &QTimer::timeout, this, [this] {
    if (lastShown_ && lastShown_ != numbersShown_) showNumbers(lastShown_);
  });
  connect(bridge_, &EngineBridge::snapshotReady, this, &MainWindow::onSnapshot);
  connect(bridge_, &EngineBridge::metricsArrived, this, &MainWindow::onMetrics);
  connect(bridge_, &EngineBridge::historyReset, this, &MainWindow::onHistoryReset);
  connect(metricsExport_, &MetricsExport::finished, this, &MainWindow::onMetricsExported);
  connect(metricsExport_, &MetricsExport::progress, this,
          [this](double fraction) { status_->showProgress(fraction); });
  connect(runPanel_, &RunPanel::command, bridge_, &EngineBridge::post);
  connect(runPanel_, &RunPanel::resetRequested, this, &MainWindow::resetRun);
  connect(runPanel_, &RunPanel::seedChanged, loadPanel_, &LoadPanel::setSeed);
  connect(loadPanel_, &LoadPanel::seedChanged, runPanel_, &RunPanel::setSeed);
  connect(loadPanel_, &LoadPanel::applyRequested, this, [this] { applyLoadPanel(); });
  connect(loadPanel_, &LoadPanel::openTraceRequested, this, [this] {
    const QString path = askOpenPath(tr("Open a recorded load"),
                                     tr("Traces (*.csv *.jsonl *.json);;All files (*)"));
    if (!path.isEmpty()) openTrace(path);
  });
  connect(loadPanel_, &LoadPanel::cancelRequested, this, [this] {
    loader_->cancel();
    loadPanel_->showProgress(-1, {});
    loadPanel_->showMessage(tr("Cancelled; the current run goes on."), false);
    status_->hideProgress();
    statusBar()->clearMessage();
  });
  connect(loader_, &RunLoader::progress, this, [this](quint64, double fraction, const QString& text) {
    loadPanel_->showProgress(fraction, text);
    status_->showProgress(fraction);
    statusBar()->showMessage(text);
  });
  connect(blockMap_, &BlockMapWidget::sequenceSelected, blockTable_, &BlockTablePanel::showSequence);
  connect(blockMap_, &BlockMapWidget::sequenceSelected, this, &MainWindow::updateSelectionHint);
  connect(blockTable_, &BlockTablePanel::blockFocused, blockMap_, &BlockMapWidget::focusBlock);
  connect(pressurePlot_, &PressurePlot::timeRangeChanged, memoryPlot_, &MemoryPlot::setTimeRange);
  const auto [lower, upper] = pressurePlot_->timeRange();
  memoryPlot_->setTimeRange(lower, upper);
}

void MainWindow::onSnapshot(const SnapshotPtr& s) {
  // The block map and the plots (fed by onMetrics) follow every snapshot; numbers, the donut and
  // the block table follow a few times a second, which is as fast as anyone reads them and
  // keeps the GUI thread's share of the CPU small (see gui_bench). The last snapshot is always
  // shown: a pause leaves the numbers exact.
  blockMap_->setSnapshot(s);
  latencyPanel_->setSnapshot(s);
  if (s != lastShown_) runPanel_->showEngineState(s->playing);
  lastShown_ = s;
  const bool fresh = !numbersShown_ || s->generation != numbersShown_->generation ||
                     s->step < numbersShown_->step || !s->playing || !s->error.empty();
  if (fresh || !numbersTimer_->isActive()) {
    showNumbers(s);
    numbersTimer_->start();
  }
}

void MainWindow::showNumbers(const SnapshotPtr& s) {
  numbersShown_ = s;
  blockTable_->setSnapshot(s);
  memoryPlot_->setSnapshot(s);
  statsPanel_->setSnapshot(s);
  statsPanel_->setStepRate(bridge_->stepsPerSecond());
  status_->showSnapshot(*s, *theme_);
  if (s->rejected_total > rejectionsAnnounced_ && !s->recent_rejections.empty()) {
    // Said once per new rejection, in the status bar where the eye already is; short, as the
    // run's description beside it leaves a third of a laptop screen for it. The statistics
    // panel shows the reasons.
    rejectionsAnnounced_ = s->rejected_total;
    const rejected_request& r = s->recent_rejections.back();
    statusBar()->showMessage(tr("Request %1 rejected (%2 so far)").arg(r.request_id).arg(s->rejected_total),
                             10000);
  }
  if (s->finished && !announcedEnd_) {
    announcedEnd_ = true;
    comparison_->recordFinished(run_, s);
    statusBar()->showMessage(tr("The load is over: every request has finished. Reset (Ctrl+R) runs "
                                "it again; a new seed gives a new load."), 10000);
  }
  updateMapHeader(s);
}

void MainWindow::onMetrics(const MetricsPtr& metrics) {
  pressurePlot_->appendMetrics(metrics);
  memoryPlot_->appendMetrics(metrics);
  latencyPanel_->appendMetrics(metrics);
  statsPanel_->appendMetrics(metrics);
}

void MainWindow::onHistoryReset() {
  pressurePlot_->clearHistory();
  memoryPlot_->clearHistory();
  latencyPanel_->clearHistory();
  statsPanel_->clearHistory();
  announcedEnd_ = false;
  rejectionsAnnounced_ = 0;
}

void MainWindow::updateMapHeader(const SnapshotPtr& s) {
  const frame_counts counts = count_frames(s->pool->frames);
  mapDetails_->setText(tr("— %1 frames × %2 (%3 budget, model %4) · %5 in use · %6 cached · %7 sequences running")
                         .arg(s->pool->frames.frames.size())
                         .arg(QString::fromStdString(format_byte_size(s->pool->frames.frame_bytes)),
                              QString::fromStdString(format_byte_size(s->budget_bytes)),
                              QString::fromStdString(run_.options.model))
                         .arg(counts.in_use).arg(counts.cached).arg(s->pool->sequences.size()));
}

void MainWindow::updateSelectionHint(sequence_id id) {
  if (id == no_sequence) {
    mapHint_->setText(tr("<i>Tip:</i> click any coloured block to see how one sequence's "
                         "logical blocks are scattered over physical frames (Esc to clear)."));
    return;
  }
  mapHint_->setText(tr("<b>Sequence %1</b> highlighted: the line visits its blocks in logical "
                       "order (circled: block 0). Consecutive tokens, scattered memory — its block "
                       "table is on the right. Esc clears.").arg(id));
}

void MainWindow::applyTheme() {
  const Theme& t = *theme_;
  QApplication::setPalette(t.palette());
  blockMap_->setTheme(t);
  blockTable_->setTheme(t);
  pressurePlot_->setTheme(t);
  memoryPlot_->setTheme(t);
  latencyPanel_->setTheme(t);
  comparison_->comparePanel()->setTheme(t);
  comparison_->sweepPanel()->setTheme(t);
  QVector<ColorLegend::Entry> entries;
  if (blockMap_->colorMode() == BlockColorMode::byPrecision) {
    entries = {{t.level[0], tr("fp16 block"), tr("One block per frame, full precision"), false, {}},
               {t.level[1], tr("q8"), tr("8-bit integers + fp16 scale per 32 values; 2 per frame"), false, {}},
               {t.level[2], tr("fp8"), tr("8-bit floats (e4m3); 2 per frame"), false, {}},
               {t.level[3], tr("q4"), tr("4-bit integers + scale per 32 values; 4 per frame"), false, {}},
               {t.level[4], tr("q3"), tr("3-bit rotated codes + scale per head vector, key outliers at int8; 5 per frame "
                                         "(kvscope's own level)"), false, {}}};
  } else {
    entries = {{t.sequenceColor(0), tr("one colour per sequence"), tr("Blocks coloured by the sequence that owns them"), false, {}}};
  }
  const QColor mark = t.dark ? QColor(0x10, 0x10, 0x10) : QColor(Qt::white);
  entries += {{t.freeFrame, tr("free"), tr("Frame (or half/quarter) nobody uses"), false, {}},
              {t.cachedBlock, tr("cached prefix"), tr("Freed block kept for prefix-cache hits; evicted LRU when memory is needed"), false, {}},
              {t.level[0], tr("shared"), tr("A dot marks a block shared by several sequences (refcount > 1)"), true, mark}};
  mapLegend_->setEntries(entries);
  if (auto s = bridge_->current()) {
    onSnapshot(s);
    showNumbers(s);
  }
}

void MainWindow::setTourMode(bool on) {
  for (const char* name : {"runDock", "loadDock"}) findChild<QDockWidget*>(QString::fromLatin1(name))->setVisible(!on);
  policyPanel_->setEnabled(!on);
  moments_->setActive(!on);
  setAcceptDrops(!on);
  for (QAction* a : liveActions_) a->setEnabled(!on);
  if (on) status_->setRunToolTip(tr("A guided tour; kvscope-cli tour prints it as text"));
}

void MainWindow::setDarkTheme(bool dark) {
  theme_ = dark ? &kvscope::ui::darkTheme() : &lightTheme();
  if (darkAction_ && darkAction_->isChecked() != dark) darkAction_->setChecked(dark);
  applyTheme();
}

void MainWindow::setBlockColorMode(BlockColorMode mode) {
  (mode == BlockColorMode::byPrecision ? byPrecision_ : bySequence_)->setChecked(true);
  precisionButton_->setChecked(mode == BlockColorMode::byPrecision);
  sequenceButton_->setChecked(mode == BlockColorMode::bySequence);
  blockMap_->setColorMode(mode);
  applyTheme();  // the legend changes with the mode
}

void MainWindow::resetRun(std::uint64_t seed) {
  // The seed boxes show at most INT_MAX: a bigger seed (from a session) counts as unchanged.
  const std::uint64_t current = seedOf(run_);
  const bool same = seed == current || (current > INT_MAX && seed == INT_MAX);
  if (!same) {
    run_description next = reseeded(run_, seed);
    next.options.policy = policy_->config();
    startRun(std::move(next), tr("%1 with seed %2").arg(describe(run_)).arg(seed));
    return;
  }
  bridge_->post(reset_command{});
  policy_->reapplyAfterReset(run_.options.policy);
}

}  // namespace kvscope::ui
