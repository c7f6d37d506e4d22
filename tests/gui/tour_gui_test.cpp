// Tour mode: Next through the built-in tour and Back again shows identical states (the pool the
// map draws, its highlight, the block table, the narration, the plotted steps); the keys step
// it; the slides have one PDF page per step; and `kvscope --tour` refuses a bad script with
// exit 2 naming the step and the field.
#include <QApplication>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QTest>

#include <gtest/gtest.h>

#include <tuple>

#include "plots/block_map_widget.hpp"
#include "panels/block_table_panel.hpp"
#include "jobs/engine_bridge.hpp"
#include "gui_test_support.hpp"
#include "window/main_window.hpp"
#include "panels/policy_panel.hpp"
#include "process.hpp"
#include "temp_dir.hpp"
#include "window/tour_controller.hpp"
#include "tour/tour_panel.hpp"
#include "tour/tour_slide.hpp"

namespace kvscope::ui {
namespace {

std::shared_ptr<const tour_run> builtIn() {
  static const auto run = [] {
    auto r = run_tour(builtin_tour());
    EXPECT_TRUE(r) << (r ? "" : r.error());
    return std::make_shared<const tour_run>(std::move(*r));
  }();
  return run;
}

// Every block a frame map holds, as (id, frame, slot, level, refcount, cached), by id.
using drawn_block = std::tuple<block_id, std::uint32_t, int, precision, int, bool>;
std::vector<drawn_block> drawnBlocks(const frame_map& map) {
  std::vector<drawn_block> out;
  for (std::uint32_t f = 0; f < map.frames.size(); ++f) {
    for (int s = 0; s < map.frames[f].slot_count; ++s) {
      const block_slot& b = map.frames[f].blocks[static_cast<std::size_t>(s)];
      if (b.block == no_block || (b.refcount == 0 && !b.cached)) continue;
      out.emplace_back(b.block, f, s, map.frames[f].tier, b.refcount, b.cached);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<drawn_block> stateBlocks(const tour_state& s) {
  std::vector<drawn_block> out;
  for (const tour_block& b : s.blocks) out.emplace_back(b.id, b.frame, b.slot, b.level, b.refcount, b.cached);
  return out;
}

// Everything the window shows of one step.
struct Shown {
  std::shared_ptr<const engine_snapshot> snapshot;
  std::vector<drawn_block> blocks;
  std::vector<block_id> marked;
  sequence_id selected = no_sequence;
  sequence_id table = no_sequence;
  std::vector<std::tuple<std::uint32_t, int, precision, bool>> rows;
  QString narration;
  std::size_t plotted = 0;
  bool operator==(const Shown&) const = default;
};

Shown shownBy(const MainWindow& w, const TourController& c) {
  Shown s;
  s.snapshot = w.bridge()->current();
  s.blocks = drawnBlocks(w.blockMap()->snapshot()->pool->frames);
  s.marked = w.blockMap()->markedBlocks();
  s.selected = w.blockMap()->selectedSequence();
  s.table = w.blockTablePanel()->sequence();
  for (const block_location& b : w.blockTablePanel()->model().rows()) s.rows.emplace_back(b.frame, b.slot, b.tier, b.shared);
  s.narration = c.panel()->narration();
  s.plotted = w.bridge()->history().point_count();
  return s;
}

MainWindow::Options testOptions() {
  MainWindow::Options o;
  o.pollIntervalMs = 10;
  return o;
}

TEST(TourWindow, NextThenBackShowsIdenticalStates) {
  auto run = builtIn();
  auto t = openTourWindow(run, testOptions());
  std::vector<Shown> forward;
  for (int i = 0; i < t.controller->count(); ++i) {
    if (i > 0) t.controller->next();
    ASSERT_EQ(t.controller->index(), i);
    const Shown s = shownBy(*t.window, *t.controller);
    const tour_frame& f = run->frames[static_cast<std::size_t>(i)];
    // What is drawn is the step's state: ids, frames, slots, levels, refcounts, cached.
    EXPECT_EQ(s.blocks, stateBlocks(f.state)) << "step " << i;
    EXPECT_EQ(s.snapshot, f.snapshot) << "step " << i;
    EXPECT_EQ(s.marked, f.focus.blocks) << "step " << i;
    EXPECT_EQ(s.selected, tourTableSequence(f)) << "step " << i;
    EXPECT_EQ(s.table, s.selected) << "step " << i;
    EXPECT_EQ(s.plotted, f.state.engine_step) << "step " << i;  // every step so far, no more
    forward.push_back(s);
  }
  t.controller->next();  // past the end: stays
  EXPECT_EQ(t.controller->index(), t.controller->count() - 1);
  for (int i = t.controller->count() - 1; i >= 0; --i) {
    t.controller->goTo(i);
    EXPECT_TRUE(shownBy(*t.window, *t.controller) == forward[static_cast<std::size_t>(i)]) << "step " << i;
  }
  t.controller->goTo(7);
  t.controller->restart();
  EXPECT_TRUE(shownBy(*t.window, *t.controller) == forward[0]);
}

// Help > Guided tour opens the built-in tour at its first step, in a window of its own that the
// main window owns, without touching the main window's run.
TEST(TourWindow, TheHelpMenuOpensTheTour) {
  auto window = test::makeWindow(test::smallSession());
  QAction* action = nullptr;
  for (QAction* menu : window->menuBar()->actions()) {
    if (!menu->menu() || menu->text() != QStringLiteral("&Help")) continue;
    for (QAction* a : menu->menu()->actions()) {
      if (a->text() == QStringLiteral("&Guided tour of the KV cache")) action = a;
    }
  }
  ASSERT_NE(action, nullptr);
  action->trigger();
  MainWindow* tour = nullptr;
  for (MainWindow* w : window->findChildren<MainWindow*>()) tour = w;
  ASSERT_NE(tour, nullptr);
  EXPECT_TRUE(tour->isWindow());
  const auto* controller = tour->findChild<TourController*>();
  ASSERT_NE(controller, nullptr);
  EXPECT_EQ(controller->index(), 0);
  EXPECT_EQ(controller->run().frames.size(), builtIn()->frames.size());
  EXPECT_FALSE(window->findChild<TourController*>(QString(), Qt::FindDirectChildrenOnly));
}

TEST(TourWindow, ButtonsAndKeysStepTheTour) {
  auto t = openTourWindow(builtIn(), testOptions());
  t.window->show();
  QApplication::setActiveWindow(t.window.get());
  ASSERT_TRUE(QTest::qWaitForWindowActive(t.window.get()));
  EXPECT_FALSE(t.controller->panel()->backButton()->isEnabled());
  QTest::keyClick(t.window.get(), Qt::Key_Right);
  EXPECT_EQ(t.controller->index(), 1);
  QTest::keyClick(t.window.get(), Qt::Key_Space);
  EXPECT_EQ(t.controller->index(), 2);
  QTest::keyClick(t.window.get(), Qt::Key_Left);
  EXPECT_EQ(t.controller->index(), 1);
  t.controller->panel()->nextButton()->click();
  t.controller->panel()->nextButton()->click();
  EXPECT_EQ(t.controller->index(), 3);
  EXPECT_NE(t.controller->panel()->narration().indexOf(QStringLiteral("refcount is now 2")), -1);
  QTest::keyClick(t.window.get(), Qt::Key_Home);
  EXPECT_EQ(t.controller->index(), 0);
  t.controller->panel()->nextButton()->click();
  t.controller->panel()->backButton()->click();
  EXPECT_EQ(t.controller->index(), 0);
  // A tour is stepped, not played: the engine commands are off.
  EXPECT_FALSE(t.window->policyPanel()->isEnabled());
}

int pdfPages(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return -1;
  const QByteArray pdf = f.readAll();
  int pages = 0;
  for (qsizetype at = pdf.indexOf("/Type /Page"); at >= 0; at = pdf.indexOf("/Type /Page", at + 1)) {
    if (pdf.mid(at + 11, 1) != "s") ++pages;  // not "/Type /Pages"
  }
  return pdf.startsWith("%PDF") ? pages : -1;
}

TEST(TourSlides, OnePdfPagePerStep) {
  test::temp_dir dir;
  const QString path = QString::fromStdString(dir.file("tour.pdf"));
  QString error;
  ASSERT_TRUE(exportTourPdf(*builtIn(), path, &error)) << error.toStdString();
  EXPECT_EQ(pdfPages(path), 13);
  EXPECT_FALSE(exportTourPdf(*builtIn(), QString::fromStdString(dir.file("missing/dir/x.pdf")), &error));
  EXPECT_NE(error.indexOf(QStringLiteral("missing/dir/x.pdf")), -1) << error.toStdString();
}

TEST(TourSlides, ASlideShowsTheStepsTableWithItsHighlight) {
  const tour_frame& f = builtIn()->frames[3];  // B shares A's blocks #0 to #2
  const QString html = tourTableHtml(f, tourTableSequence(f), lightTheme());
  EXPECT_NE(html.indexOf(QStringLiteral("Block table of request B")), -1) << html.toStdString();
  EXPECT_EQ(html.count(QStringLiteral("font-weight:bold")), 3);  // the three shared blocks
}

TEST(TourBinary, ExportsSlidesAndRefusesABadScript) {
  test::temp_dir dir;
  const std::string pdf = dir.file("slides.pdf");
  const auto ok = test::run_process({KVSCOPE_GUI_PATH, "--tour", "--export-pdf", pdf});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(pdfPages(QString::fromStdString(pdf)), 13);

  const std::string bad = dir.file("tour.json");
  test::write_text(bad, R"({"requests": [{"prompt_tokens": 8}], "steps": [{"steps": 1, "narration": ["no"]}]})");
  const auto refused = test::run_process({KVSCOPE_GUI_PATH, "--tour", bad, "--export-pdf", dir.file("x.pdf")});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find(bad + ": field 'steps[0].narration': expected a string, got array"), std::string::npos) << refused.err;

  const auto step = test::run_process({KVSCOPE_GUI_PATH, "--tour", "--tour-step", "14", "--export-pdf", pdf});
  EXPECT_EQ(step.exit_code, 2);
  EXPECT_NE(step.err.find("--tour-step"), std::string::npos) << step.err;
  const auto mixed = test::run_process({KVSCOPE_GUI_PATH, "--tour", "--load", "gen:count=3", "--export-pdf", pdf});
  EXPECT_EQ(mixed.exit_code, 2);
}

TEST(TourBinary, WithoutADisplayPrintsTheTourAsText) {
  const auto r = test::run_process({"/usr/bin/env", "-u", "QT_QPA_PLATFORM", "-u", "DISPLAY", "-u", "WAYLAND_DISPLAY",
                                    KVSCOPE_GUI_PATH, "--tour"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("== Step 13 of 13: Eviction when space is needed =="), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kvscope::ui
