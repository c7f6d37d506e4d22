#pragma once
// Tour mode of the main window. The tour is run once, forward (core's run_tour); a TourFeed
// serves the window the snapshot kept for the step shown, so Back and Restart show exactly the
// state that step had. The controller moves between steps (buttons, Right/Space, Left, Home),
// points the block map and the block table at what the step talks about, rings the EWMA point
// of the step in the pressure plot, and shows the narration in a dock.
#include <QObject>

#include <memory>

#include "window/main_window.hpp"
#include "run/commands.hpp"
#include "tour/tour_run.hpp"

namespace kvscope::ui {

class TourPanel;

// What the window reads in tour mode: the kept snapshot of one step. Commands change nothing
// (a tour is stepped, not played).
class TourFeed final : public engine_feed {
 public:
  explicit TourFeed(std::shared_ptr<const tour_run> run) : run_(std::move(run)) {}
  void post(runner_command) override {}
  std::shared_ptr<const engine_snapshot> latest() const override { return run_->frames.at(index_).snapshot; }
  void show(std::size_t index) { index_ = index; }

 private:
  std::shared_ptr<const tour_run> run_;
  std::size_t index_ = 0;
};

class TourController : public QObject {
  Q_OBJECT
 public:
  TourController(std::shared_ptr<const tour_run> run, MainWindow* window, TourFeed* feed);

  int index() const { return index_; }
  int count() const { return static_cast<int>(run_->frames.size()); }
  const tour_run& run() const { return *run_; }
  TourPanel* panel() const { return panel_; }

 public Q_SLOTS:
  void next();
  void back();
  void restart();
  void goTo(int index);  // clamped to the steps there are

 Q_SIGNALS:
  void stepShown(int index);

 private:
  std::shared_ptr<const tour_run> run_;
  MainWindow* window_;
  TourFeed* feed_;
  TourPanel* panel_ = nullptr;
  int index_ = -1;
};

// A main window in tour mode on `run` (its first step shown) and its controller (a child of
// the window).
struct TourWindow {
  std::unique_ptr<MainWindow> window;
  TourController* controller = nullptr;
};
TourWindow openTourWindow(std::shared_ptr<const tour_run> run, MainWindow::Options options);

}  // namespace kvscope::ui
