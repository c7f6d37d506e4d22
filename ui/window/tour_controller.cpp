#include "window/tour_controller.hpp"

#include <QDockWidget>
#include <QShortcut>

#include <algorithm>

#include "plots/block_map_widget.hpp"
#include "panels/block_table_panel.hpp"
#include "jobs/engine_bridge.hpp"
#include "plots/pressure_plot.hpp"
#include "common/qcustomplot_include.hpp"
#include "tour/tour_panel.hpp"
#include "tour/tour_slide.hpp"

namespace kvscope::ui {

TourController::TourController(std::shared_ptr<const tour_run> run, MainWindow* window, TourFeed* feed)
    : QObject(window), run_(std::move(run)), window_(window), feed_(feed) {
  panel_ = new TourPanel;
  auto* dock = new QDockWidget(tr("Guided tour"), window);
  dock->setObjectName(QStringLiteral("tourDock"));
  dock->setWidget(panel_);
  window->addDockWidget(Qt::LeftDockWidgetArea, dock);
  window->resizeDocks({dock}, {430}, Qt::Horizontal);
  if (auto* table = window->findChild<QDockWidget*>(QStringLiteral("blockTableDock"))) table->raise();
  window->setTourMode(true);
  window->blockMap()->setMaxCell(120);
  window->blockMap()->setShowBlockIds(true);
  // As on the slides: frames outlined, the step's blocks ringed rather than the rest dimmed
  // (pale is what a block's room not yet written looks like).
  window->blockMap()->setOutlineFrames(true);
  window->blockMap()->setDimUnhighlighted(false);
  window->pressurePlot()->setMarkLatest(true);
  // The plots span the whole tour: each step adds its stretch of time to a fixed axis.
  window->pressurePlot()->setLive(false);
  window->pressurePlot()->customPlot()->xAxis->setRange(0, std::max(0.1, run_->frames.back().state.sim_time_s * 1.04));
  QStringList names;
  for (const request& r : run_->script.requests) names << QString::fromStdString(request_name(r));
  window->blockTablePanel()->setRequestNames(names);
  connect(panel_, &TourPanel::nextRequested, this, &TourController::next);
  connect(panel_, &TourPanel::backRequested, this, &TourController::back);
  connect(panel_, &TourPanel::restartRequested, this, &TourController::restart);
  const auto key = [window](QKeySequence keys, auto slot, TourController* self) {
    connect(new QShortcut(keys, window), &QShortcut::activated, self, slot);
  };
  key(QKeySequence(Qt::Key_Right), &TourController::next, this);
  key(QKeySequence(Qt::Key_Space), &TourController::next, this);
  key(QKeySequence(Qt::Key_Left), &TourController::back, this);
  key(QKeySequence(Qt::Key_Home), &TourController::restart, this);
}

void TourController::next() { goTo(index_ + 1); }
void TourController::back() { goTo(index_ - 1); }
void TourController::restart() { goTo(0); }

void TourController::goTo(int index) {
  index = std::clamp(index, 0, count() - 1);
  if (index == index_) return;
  index_ = index;
  const tour_frame& f = run_->frames[static_cast<std::size_t>(index)];
  feed_->show(static_cast<std::size_t>(index));
  window_->bridge()->poll();  // the kept snapshot, at once: map, numbers, plots
  window_->blockMap()->setMarkedBlocks(f.focus.blocks);
  const sequence_id shown = tourTableSequence(f);
  window_->blockMap()->selectSequence(shown);
  window_->blockTablePanel()->showSequence(shown);
  panel_->showStep(*run_, index);
  Q_EMIT stepShown(index);
}

TourWindow openTourWindow(std::shared_ptr<const tour_run> run, MainWindow::Options options) {
  auto feed = std::make_unique<TourFeed>(run);
  TourFeed* raw = feed.get();
  run_description shown;
  shown.load_spec = run->script.source;
  shown.options = run->script.options;
  options.persistSettings = false;  // a tour's layout is its own
  TourWindow t;
  t.window = std::make_unique<MainWindow>(std::move(feed), shown, 0.0, options);
  t.window->setWindowTitle(QObject::tr("kvscope tour — %1").arg(QString::fromStdString(run->script.title)));
  t.controller = new TourController(std::move(run), t.window.get(), raw);
  t.controller->goTo(0);
  return t;
}

}  // namespace kvscope::ui
