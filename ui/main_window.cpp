#include "main_window.hpp"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "qcustomplot_include.hpp"

#include "block_map_widget.hpp"
#include "block_table_panel.hpp"
#include "engine_bridge.hpp"
#include "exports.hpp"
#include "io/policy_file.hpp"
#include "kvscope_version.hpp"
#include "level_legend.hpp"
#include "memory_plot.hpp"
#include "policy_panel.hpp"
#include "pressure_plot.hpp"
#include "run_panel.hpp"
#include "scripted_feed.hpp"
#include "stats_panel.hpp"
#include "util/atomic_write.hpp"

namespace kvscope::ui {
namespace {

QString levelName(precision p) { return QString::fromLatin1(tag(p).data()); }

}  // namespace

MainWindow::MainWindow(std::unique_ptr<engine_feed> feed, Options options, QWidget* parent)
    : QMainWindow(parent), options_(std::move(options)) {
  setWindowTitle(tr("kvscope — paged KV cache with precision tiers"));
  setWindowIcon(QIcon(QStringLiteral(":/kvscope/kvscope.png")));
  setObjectName(QStringLiteral("mainWindow"));
  setAcceptDrops(true);
  bridge_ = new EngineBridge(std::move(feed), this);
  buildCentral();
  buildDocks();
  buildMenus();
  buildStatusBar();
  wire();
  resize(1600, 1000);
  resizeDocks({findChild<QDockWidget*>(QStringLiteral("policyDock"))}, {380}, Qt::Horizontal);
  resizeDocks({findChild<QDockWidget*>(QStringLiteral("runDock")), findChild<QDockWidget*>(QStringLiteral("policyDock")),
               findChild<QDockWidget*>(QStringLiteral("statsDock"))}, {110, 250, 300}, Qt::Vertical);
  resizeDocks({findChild<QDockWidget*>(QStringLiteral("pressureDock"))}, {330}, Qt::Vertical);
  resizeDocks({findChild<QDockWidget*>(QStringLiteral("pressureDock")),
               findChild<QDockWidget*>(QStringLiteral("memoryDock"))}, {900, 700}, Qt::Horizontal);
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
  mapTitle_ = new QLabel;
  mapTitle_->setTextFormat(Qt::RichText);
  mapTitle_->setWordWrap(true);
  auto* explain = new QLabel(tr(
      "Each square is a <b>frame</b>: the memory of one fp16 block of 16 tokens. Under pressure the "
      "policy stores older (“cold”) blocks more compactly, so a frame holds <b>two</b> 8-bit blocks "
      "(halves) or <b>four</b> 4-bit blocks (quarters). The pale top of a block is room for tokens "
      "not yet written. Hover for details; <b>click a block</b> to follow its sequence."));
  explain->setWordWrap(true);
  explain->setTextFormat(Qt::RichText);
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
  layout->addWidget(mapTitle_);
  layout->addWidget(explain);
  layout->addLayout(legendRow);
  layout->addWidget(blockMap_, 1);
  layout->addWidget(mapHint_);
  setCentralWidget(central);
  updateSelectionHint(no_sequence);
}

void MainWindow::buildDocks() {
  setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
  setDockNestingEnabled(true);
  const auto dock = [this](const QString& title, const char* name, QWidget* w, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(QString::fromLatin1(name));
    d->setWidget(w);
    addDockWidget(area, d);
    return d;
  };
  blockTable_ = new BlockTablePanel;
  runPanel_ = new RunPanel;
  policyPanel_ = new PolicyPanel;
  statsPanel_ = new StatsPanel;
  pressurePlot_ = new PressurePlot;
  memoryPlot_ = new MemoryPlot;
  auto* run = dock(tr("Run"), "runDock", runPanel_, Qt::RightDockWidgetArea);
  auto* policy = dock(tr("Policy (applies live)"), "policyDock", policyPanel_, Qt::RightDockWidgetArea);
  auto* stats = dock(tr("Statistics"), "statsDock", statsPanel_, Qt::RightDockWidgetArea);
  auto* table = dock(tr("Block table"), "blockTableDock", blockTable_, Qt::RightDockWidgetArea);
  splitDockWidget(run, policy, Qt::Vertical);
  splitDockWidget(policy, stats, Qt::Vertical);
  tabifyDockWidget(stats, table);
  stats->raise();
  // Picking a sequence in the map brings its block table to the front.
  connect(blockMap_, &BlockMapWidget::sequenceSelected, table, [table](sequence_id id) {
    if (id != no_sequence) table->raise();
  });
  auto* pressure = dock(tr("Pressure, thresholds and level"), "pressureDock", pressurePlot_,
                        Qt::BottomDockWidgetArea);
  auto* memory = dock(tr("Memory by precision"), "memoryDock", memoryPlot_, Qt::BottomDockWidgetArea);
  splitDockWidget(pressure, memory, Qt::Horizontal);
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open load…"), QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open a recorded load"), QString(),
                                                      tr("Traces (*.csv *.jsonl *.json);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    report(openLoad(path, &error), QString(), error);
  });
  file->addAction(tr("&Import policy config…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Import a policy config"), QString(),
                                                      tr("Policy configs (*.json *.toml)"));
    if (path.isEmpty()) return;
    QString error;
    report(importPolicyConfig(path, &error), tr("Policy imported from %1").arg(path), error);
  });
  file->addAction(tr("&Export policy config…"), QKeySequence(Qt::CTRL | Qt::Key_E), this, [this] {
    const QString path = askSavePath(tr("Export the policy config"),
                                     tr("JSON (*.json);;TOML (*.toml)"), QStringLiteral("policy.json"));
    if (path.isEmpty()) return;
    QString error;
    report(exportPolicyConfig(path, &error), tr("Policy config written to %1").arg(path), error);
  });
  file->addAction(tr("&Save session…"), QKeySequence::Save, this, [this] {
    const QString path = askSavePath(tr("Save the session"), tr("kvscope session (*.json)"),
                                     QStringLiteral("session.kvscope.json"));
    if (path.isEmpty()) return;
    QString error;
    report(saveSession(path, &error), tr("Session written to %1").arg(path), error);
  });
  file->addSeparator();
  for (auto [label, plot, name] :
       {std::tuple{tr("Export pressure plot…"), static_cast<QWidget*>(pressurePlot_), "pressure"},
        std::tuple{tr("Export memory plot…"), static_cast<QWidget*>(memoryPlot_), "memory"}}) {
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

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  auto* play = run->addAction(tr("Play / pause"), QKeySequence(Qt::Key_Space), runPanel_, &RunPanel::togglePlay);
  auto* step = run->addAction(tr("Step"), QKeySequence(Qt::Key_N), runPanel_, &RunPanel::stepOnce);
  run->addAction(tr("Reset"), QKeySequence(Qt::CTRL | Qt::Key_R), runPanel_, &RunPanel::reset);
  for (QAction* a : {play, step}) a->setShortcutContext(Qt::WindowShortcut);

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
           "<p>Until the engine runner lands, the window shows a <b>scripted demo load</b> — a "
           "stand-in whose pressure follows a fixed curve through both thresholds.</p>"));
  });
  help->addAction(tr("About kvscope"), this, [this] {
    QMessageBox::about(this, tr("About kvscope"),
                       tr("kvscope %1 — see, explain and tune the memory of an LLM KV cache.")
                           .arg(QString::fromLatin1(version_string)));
  });
}

void MainWindow::buildStatusBar() {
  const auto add = [this](const QString& tip) {
    auto* l = new QLabel;
    l->setToolTip(tip);
    l->setTextFormat(Qt::RichText);
    statusBar()->addPermanentWidget(l);
    return l;
  };
  feedLabel_ = add(tr("Where the snapshots come from"));
  stepLabel_ = add(tr("Engine step"));
  timeLabel_ = add(tr("Simulated time"));
  pressureLabel_ = add(tr("Raw pressure and its EWMA, which the policy compares with its thresholds"));
  levelLabel_ = add(tr("The policy's level: how cold blocks are stored now"));
  queueLabel_ = add(tr("Sequences running / requests waiting"));
  feedLabel_->setText(options_.loadDescription);
}

void MainWindow::wire() {
  connect(bridge_, &EngineBridge::snapshotReady, this, &MainWindow::onSnapshot);
  connect(bridge_, &EngineBridge::metricsArrived, this, &MainWindow::onMetrics);
  connect(bridge_, &EngineBridge::historyReset, this, &MainWindow::onHistoryReset);
  connect(bridge_, &EngineBridge::enginePolicy, this, [this](const policy_config& c) {
    policyPanel_->setConfig(c);
    pressurePlot_->setPolicy(c);
  });
  // The bands move with the slider, before the engine has even seen the new config.
  connect(policyPanel_, &PolicyPanel::policyChanged, pressurePlot_, &PressurePlot::setPolicy);
  connect(policyPanel_, &PolicyPanel::policyChanged, bridge_, &EngineBridge::postPolicy);
  connect(runPanel_, &RunPanel::command, bridge_, &EngineBridge::post);
  connect(runPanel_, &RunPanel::seedChanged, this, [this](std::uint64_t seed) {
    // engine_feed has no seed command: only the stand-in feed takes one (used at next reset).
    if (auto* scripted = dynamic_cast<ScriptedFeed*>(bridge_->feed())) scripted->setSeed(seed);
  });
  connect(blockMap_, &BlockMapWidget::sequenceSelected, blockTable_, &BlockTablePanel::showSequence);
  connect(blockMap_, &BlockMapWidget::sequenceSelected, this, &MainWindow::updateSelectionHint);
  connect(blockTable_, &BlockTablePanel::blockFocused, blockMap_, &BlockMapWidget::focusBlock);
  connect(pressurePlot_, &PressurePlot::timeRangeChanged, memoryPlot_, &MemoryPlot::setTimeRange);
  const auto [lower, upper] = pressurePlot_->timeRange();
  memoryPlot_->setTimeRange(lower, upper);
}

void MainWindow::onSnapshot(const SnapshotPtr& s) {
  blockMap_->setSnapshot(s);
  blockTable_->setSnapshot(s);
  memoryPlot_->setSnapshot(s);
  statsPanel_->setSnapshot(s);
  statsPanel_->setStepRate(bridge_->stepsPerSecond());
  if (s != lastShown_) runPanel_->showEngineState(s->playing);
  lastShown_ = s;
  const step_metrics& m = s->latest;
  stepLabel_->setText(tr("step %1").arg(s->step));
  timeLabel_->setText(tr("t = %1 s").arg(s->sim_time_s, 0, 'f', 1));
  pressureLabel_->setText(tr("pressure %1 · EWMA %2")
                              .arg(m.kv_cache_usage_perc, 0, 'f', 3)
                              .arg(s->policy_now.ewma, 0, 'f', 3));
  const precision level = s->policy_now.level;
  levelLabel_->setText(tr("level <span style='color:%1'>■</span> <b>%2</b>")
                           .arg(theme_->levelColor(level).name(), levelName(level)));
  queueLabel_->setText(tr("running %1 · waiting %2").arg(m.num_requests_running).arg(m.num_requests_waiting));
  if (bridge_->missedSteps() > 0) {
    feedLabel_->setText(tr("%1 · %2 steps not seen by the plots")
                            .arg(options_.loadDescription).arg(bridge_->missedSteps()));
  }
  updateMapHeader(s);
}

void MainWindow::onMetrics(const MetricsPtr& metrics) {
  pressurePlot_->appendMetrics(metrics);
  memoryPlot_->appendMetrics(metrics);
  statsPanel_->appendMetrics(metrics);
  for (const step_metrics& m : *metrics) {
    ++totals_.steps;
    totals_.usageSum += m.kv_cache_usage_perc;
    totals_.usagePeak = std::max(totals_.usagePeak, m.kv_cache_usage_perc);
    totals_.savingSum += MemoryBreakdown::of(m).saving;
  }
}

void MainWindow::onHistoryReset() {
  pressurePlot_->clearHistory();
  memoryPlot_->clearHistory();
  statsPanel_->clearHistory();
  totals_ = Totals{};
}

void MainWindow::updateMapHeader(const SnapshotPtr& s) {
  const std::size_t frames = s->frames.frames.size();
  std::size_t used = 0;
  for (const frame_info& f : s->frames.frames) used += !f.is_free();
  const double frameMiB = frames ? static_cast<double>(s->budget_bytes) / static_cast<double>(frames) / (1 << 20) : 0;
  mapTitle_->setText(tr("<span style='font-size:large'><b>KV block pool</b></span> — %1 frames × %2 MiB "
                        "(%3 GiB budget) · %4 frames in use · %5 sequences")
                         .arg(frames).arg(frameMiB, 0, 'f', 1)
                         .arg(static_cast<double>(s->budget_bytes) / (1 << 30), 0, 'f', 1)
                         .arg(used).arg(s->sequences.size()));
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
  QVector<ColorLegend::Entry> entries;
  if (blockMap_->colorMode() == BlockColorMode::byPrecision) {
    entries = {{t.level[0], tr("fp16 block"), tr("One block per frame, full precision"), false, {}},
               {t.level[1], tr("q8"), tr("8-bit integers + fp16 scale per 32 values; 2 per frame"), false, {}},
               {t.level[2], tr("fp8"), tr("8-bit floats (e4m3); 2 per frame"), false, {}},
               {t.level[3], tr("q4"), tr("4-bit integers + scale per 32 values; 4 per frame"), false, {}}};
  } else {
    entries = {{t.sequenceColor(0), tr("one colour per sequence"), tr("Blocks coloured by the sequence that owns them"), false, {}}};
  }
  const QColor mark = t.dark ? QColor(0x10, 0x10, 0x10) : QColor(Qt::white);
  entries += {{t.freeFrame, tr("free"), tr("Frame (or half/quarter) nobody uses"), false, {}},
              {t.cachedBlock, tr("cached prefix"), tr("Freed block kept for prefix-cache hits; evicted LRU when memory is needed"), false, {}},
              {t.level[0], tr("shared"), tr("A dot marks a block shared by several sequences (refcount > 1)"), true, mark}};
  mapLegend_->setEntries(entries);
  if (auto s = bridge_->current()) onSnapshot(s);
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

void MainWindow::restoreSettings() {
  QSettings s;
  restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(s.value(QStringLiteral("window/state")).toByteArray());
  theme_ = s.value(QStringLiteral("view/dark"), false).toBool() ? &kvscope::ui::darkTheme() : &lightTheme();
  darkAction_->setChecked(theme_->dark);
  if (s.value(QStringLiteral("view/bySequence"), false).toBool()) setBlockColorMode(BlockColorMode::bySequence);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (options_.persistSettings) {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("view/dark"), theme_->dark);
    s.setValue(QStringLiteral("view/bySequence"), blockMap_->colorMode() == BlockColorMode::bySequence);
  }
  QMainWindow::closeEvent(event);
}

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

bool MainWindow::exportPolicyConfig(const QString& path, QString* error) {
  const policy_config config = policyPanel_->config();
  policy_provenance prov;
  prov.load = options_.loadDescription.toStdString();
  prov.model = options_.model.toStdString();
  if (const auto s = bridge_->current()) {
    prov.budget_bytes = s->budget_bytes;
    const step_metrics& m = s->latest;
    const double steps = static_cast<double>(std::max<std::uint64_t>(1, totals_.steps));
    prov.metrics = {{"steps", static_cast<double>(totals_.steps)},
                    {"mean_kv_cache_usage_perc", totals_.usageSum / steps},
                    {"peak_kv_cache_usage_perc", totals_.usagePeak},
                    {"mean_saving_vs_fp16", totals_.savingSum / steps},
                    {"num_preemptions_total", static_cast<double>(m.num_preemptions_total)},
                    {"level_transitions_total", static_cast<double>(m.level_transitions_total)}};
    if (m.prefix_cache_queries > 0) {
      prov.metrics.emplace_back("prefix_cache_hit_rate", static_cast<double>(m.prefix_cache_hits) /
                                                             static_cast<double>(m.prefix_cache_queries));
    }
  }
  const auto written = write_policy_config(path.toStdString(), config, &prov);
  if (!written) {
    if (error) *error = QString::fromStdString(written.error());
    return false;
  }
  return true;
}

bool MainWindow::importPolicyConfig(const QString& path, QString* error) {
  const auto config = read_policy_config(path.toStdString());
  if (!config) {
    if (error) *error = QString::fromStdString(config.error());
    return false;
  }
  policyPanel_->setConfig(*config);
  pressurePlot_->setPolicy(*config);
  bridge_->postPolicy(*config);
  return true;
}

bool MainWindow::exportPlot(QWidget* plot, const QString& path, QString* error) {
  QCustomPlot* custom = plot == pressurePlot_ ? pressurePlot_->customPlot()
                        : plot == memoryPlot_ ? memoryPlot_->customPlot() : nullptr;
  if (!custom) {
    if (error) *error = tr("no such plot");
    return false;
  }
  return exportPlotFile(custom, path, error);
}

bool MainWindow::saveSession(const QString& path, QString* error) {
  if (options_.saveSession) {
    const auto snap = bridge_->current();
    if (!snap) {
      if (error) *error = tr("%1: nothing to save yet (no snapshot from the engine)").arg(path);
      return false;
    }
    const auto written = options_.saveSession(path, *snap);
    if (!written && error) *error = QString::fromStdString(written.error());
    return static_cast<bool>(written);
  }
  SessionRecord record;
  record.load = options_.loadDescription;
  record.model = options_.model;
  record.seed = runPanel_->seed();
  record.policy = policyPanel_->config();
  record.latest = bridge_->current();
  record.posted = bridge_->posted();
  const QByteArray json = sessionRecordJson(record);
  const auto written = write_file_atomically(path.toStdString(), std::string_view(json.constData(), static_cast<std::size_t>(json.size())));
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

bool MainWindow::openLoad(const QString& path, QString* error) {
  if (!options_.openLoad) {
    if (error) {
      *error = tr("%1: this build cannot open recorded loads yet (the demo load keeps running).").arg(path);
    }
    return false;
  }
  statusBar()->showMessage(tr("Opening %1…").arg(path));
  QApplication::setOverrideCursor(Qt::WaitCursor);
  auto feed = options_.openLoad(path);
  QApplication::restoreOverrideCursor();
  if (!feed) {  // the reader's message; the running load is untouched
    if (error) *error = QString::fromStdString(feed.error());
    return false;
  }
  bridge_->setFeed(std::move(*feed));
  options_.loadDescription = path;
  feedLabel_->setText(path);
  statusBar()->showMessage(tr("Running %1").arg(path), 6000);
  if (options_.persistSettings) QSettings().setValue(QStringLiteral("files/lastLoad"), path);
  return true;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.isEmpty()) return;
  const QString path = urls.front().toLocalFile();
  QString error;
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("toml") ||
      (suffix == QLatin1String("json") && !path.endsWith(QLatin1String(".kvscope.json")))) {
    report(importPolicyConfig(path, &error), tr("Policy imported from %1").arg(path), error);
  } else {
    report(openLoad(path, &error), QString(), error);
  }
  event->acceptProposedAction();
}

}  // namespace kvscope::ui
