// The window on a laptop screen: at 1366×768 (also what a 2732×1536 screen at scale 2 offers)
// its frame fits, every control of every dock is inside what is shown or inside a scroll area,
// the block table shows at least twelve rows, and the geometry comes back next time.
#include <QAbstractButton>
#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLineEdit>
#include <QScrollBar>
#include <QSettings>
#include <QStyle>
#include <QTabBar>
#include <QTableView>
#include <QTest>

#include <gtest/gtest.h>

#include "plots/block_map_widget.hpp"
#include "panels/block_table_panel.hpp"
#include "jobs/engine_bridge.hpp"
#include "gui_test_support.hpp"
#include "window/main_window.hpp"

namespace kvscope::ui {
namespace {

const QRect laptop(0, 0, 1366, 768);

bool isControl(const QWidget* w) {
  if (qobject_cast<const QScrollBar*>(w)) return false;  // part of the scroll area that holds it
  if (qobject_cast<const QLineEdit*>(w) && (qobject_cast<const QAbstractSpinBox*>(w->parentWidget()) ||
                                             qobject_cast<const QComboBox*>(w->parentWidget()))) {
    return false;  // the editor inside a spin box or combo box
  }
  return qobject_cast<const QAbstractButton*>(w) || qobject_cast<const QAbstractSpinBox*>(w) ||
         qobject_cast<const QAbstractSlider*>(w) || qobject_cast<const QComboBox*>(w) ||
         qobject_cast<const QLineEdit*>(w) || qobject_cast<const QTableView*>(w);
}

// Why `w` cannot be reached, or "" when it can: each widget from it up to the window lies
// inside its parent, except inside a scroll area's viewport (scrolling reaches it).
std::string unreachable(const QWidget* w, const QWidget* window) {
  for (const QWidget* child = w; child != window; child = child->parentWidget()) {
    const QWidget* parent = child->parentWidget();
    if (const auto* area = qobject_cast<const QAbstractScrollArea*>(parent ? parent->parentWidget() : nullptr);
        area && area->viewport() == parent) {
      continue;
    }
    // One pixel of slack for rounding in layouts.
    if (!parent->rect().adjusted(-1, -1, 1, 1).contains(child->geometry())) {
      return child->metaObject()->className() + std::string(" '") + child->objectName().toStdString() +
             "' at " + std::to_string(child->x()) + "," + std::to_string(child->y()) + " size " +
             std::to_string(child->width()) + "x" + std::to_string(child->height()) + " outside its " +
             parent->metaObject()->className() + " of " + std::to_string(parent->width()) + "x" +
             std::to_string(parent->height());
    }
  }
  return {};
}

// A dock behind another's tab: Qt keeps it "visible" but moves it out of the window.
bool behindATab(const QWidget* w, const QWidget* window) {
  for (; w && w != window; w = w->parentWidget()) {
    if (qobject_cast<const QDockWidget*>(w) && !w->geometry().intersects(window->rect())) return true;
  }
  return false;
}

// Every visible control of the window is reachable; returns how many were checked.
int expectReachable(const MainWindow& window, const char* what) {
  int checked = 0;
  for (const QWidget* w : window.findChildren<QWidget*>()) {
    if (!isControl(w) || !w->isVisible() || behindATab(w, &window)) continue;
    ++checked;
    const std::string why = unreachable(w, &window);
    EXPECT_TRUE(why.empty()) << what << ": " << why;
  }
  return checked;
}

class LaptopLayout : public ::testing::Test {
 protected:
  void SetUp() override {
    window = test::makeWindow(test::smallSession(), &feed);
    window->fitTo(laptop);
    window->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
  }
  runner* feed = nullptr;
  std::unique_ptr<MainWindow> window;
};

TEST_F(LaptopLayout, TheFrameFitsAndEveryControlOfEveryTabIsReachable) {
  EXPECT_TRUE(laptop.contains(window->frameGeometry()))
      << window->frameGeometry().width() << "x" << window->frameGeometry().height();
  EXPECT_LE(window->minimumSizeHint().width(), laptop.width());
  EXPECT_LE(window->minimumSizeHint().height(), laptop.height());
  // The tabbed docks one after the other: a control behind a tab is reached through the tab.
  for (const char* name : {"statsDock", "blockTableDock", "loadDock", "compareDock", "latencyDock", "runsDock"}) {
    auto* dock = window->findChild<QDockWidget*>(QString::fromLatin1(name));
    ASSERT_NE(dock, nullptr) << name;
    dock->raise();
    QApplication::processEvents();
    EXPECT_TRUE(dock->isVisible()) << name;
    EXPECT_TRUE(window->rect().contains(dock->geometry())) << name;
    EXPECT_GT(expectReachable(*window, name), 30) << name;
  }
  // Docks keep a useful size: on a short screen the plots get half the height (a 38 % share
  // left them about 200 pixels), and the map is not squeezed to nothing.
  for (const char* name : {"pressurePlot", "memoryPlot"}) {
    const auto* plot = window->findChild<QWidget*>(QString::fromLatin1(name));
    ASSERT_NE(plot, nullptr) << name;
    EXPECT_GE(plot->height(), 260) << name;
    EXPECT_GE(plot->width(), 180) << name;
  }
  EXPECT_GE(window->blockMap()->height(), 200);
  // The latency panel's two plots, stacked in one dock, both readable.
  window->raiseDock(QStringLiteral("latency"));
  QApplication::processEvents();
  for (const char* name : {"latencyPlot", "servicePlot"}) {
    const auto* plot = window->findChild<QWidget*>(QString::fromLatin1(name));
    ASSERT_NE(plot, nullptr) << name;
    EXPECT_GE(plot->height(), name == std::string("latencyPlot") ? 160 : 70) << name;
    EXPECT_GE(plot->width(), 180) << name;
  }
}

// The docks' tab names are whole at 1366 pixels ("Statist…" and "Block ta…" were not): each
// tab is as wide as its text and the style's padding, and inside its bar.
TEST_F(LaptopLayout, EveryTabNameIsWhole) {
  int tabs = 0;
  for (const QTabBar* bar : window->findChildren<QTabBar*>()) {
    if (!bar->isVisible()) continue;
    const int padding = bar->style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, bar);
    for (int i = 0; i < bar->count(); ++i, ++tabs) {
      const QString text = bar->tabText(i);
      const int needed = bar->fontMetrics().horizontalAdvance(text) + padding;
      EXPECT_GE(bar->tabRect(i).width(), needed) << text.toStdString() << " is cut";
      EXPECT_TRUE(bar->rect().contains(bar->tabRect(i))) << text.toStdString() << " is scrolled away";
    }
  }
  EXPECT_GE(tabs, 8);  // the side column's four and the plots' four
}

// On a large screen the first start takes the screen, not a 1600×1000 window in it.
TEST(WindowGeometry, TheFirstStartTakesTheScreen) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  window->fitTo(QRect(0, 0, 1920, 1080));
  EXPECT_GE(window->width(), 1900);
  EXPECT_GE(window->height(), 1040);
}

TEST_F(LaptopLayout, TheBlockTableShowsAtLeastTwelveRows) {
  ASSERT_TRUE(test::stepAndShow(*window, *feed, 300));
  const auto snap = window->bridge()->current();
  ASSERT_FALSE(snap->pool->sequences.empty());
  window->blockMap()->selectSequence(snap->pool->sequences.front().id);  // raises the table's dock
  QApplication::processEvents();
  auto* view = window->blockTablePanel()->findChild<QTableView*>();
  ASSERT_NE(view, nullptr);
  ASSERT_TRUE(view->isVisible());
  const int rowHeight = view->verticalHeader()->defaultSectionSize();
  EXPECT_GE(view->viewport()->height(), 12 * rowHeight) << view->viewport()->height() << " px";
  EXPECT_FALSE(view->horizontalScrollBar()->isVisible()) << "every column in view";
  // …all of it in view, not behind the dock's scroll bar.
  EXPECT_EQ(unreachable(view, window.get()), "");
  const QRect shown(view->mapTo(window.get(), QPoint(0, 0)), view->size());
  const auto* dock = window->findChild<QDockWidget*>(QStringLiteral("blockTableDock"));
  EXPECT_TRUE(dock->geometry().adjusted(0, 0, 1, 1).contains(shown));
  const auto* scroll = qobject_cast<QAbstractScrollArea*>(dock->widget());
  ASSERT_NE(scroll, nullptr);
  EXPECT_FALSE(scroll->verticalScrollBar()->isVisible()) << "the table does not fit its dock";
}

// The geometry and the dock layout come back in the next window; a window that does not
// persist settings (screenshots) neither restores nor saves them.
TEST(WindowGeometry, IsRestoredNextTime) {
  QSettings().clear();
  MainWindow::Options options;
  const run_description s = test::smallSession();
  QRect closedAt;
  {
    MainWindow first(test::makeTestRunner(s), s, 0, options);
    first.fitTo(laptop);
    first.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&first));
    first.setGeometry(40, 30, 1200, 700);
    QApplication::processEvents();
    closedAt = first.geometry();
    first.close();
  }
  MainWindow second(test::makeTestRunner(s), s, 0, options);
  second.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&second));
  EXPECT_EQ(second.geometry().size(), closedAt.size());
  second.close();
  options.persistSettings = false;
  MainWindow third(test::makeTestRunner(s), s, 0, options);
  EXPECT_EQ(third.size(), QSize(1600, 1000));
  QSettings().clear();
}

}  // namespace
}  // namespace kvscope::ui
