// Typing and the wheel: a threshold typed into a spin box reaches the live run once, on Enter,
// not once per keystroke; the wheel over an unfocused spin box, slider or combo box scrolls
// the panel around it and leaves the value alone, and changes it once the control has focus.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QSpontaneKeyEvent>
#include <QTest>
#include <QWheelEvent>

#include <gtest/gtest.h>

#include "jobs/engine_bridge.hpp"
#include "gui_test_support.hpp"
#include "window/main_window.hpp"
#include "panels/policy_panel.hpp"
#include "common/wheel_guard.hpp"

namespace kvscope::ui {
namespace {

TEST(Typing, AThresholdReachesTheRunOnceOnEnter) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  window->show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
  QDoubleSpinBox* q8 = window->policyPanel()->spinBox(PolicyPanel::q8Threshold);
  QSignalSpy changed(window->policyPanel(), &PolicyPanel::policyChanged);
  q8->setFocus();
  q8->selectAll();
  QTest::keyClicks(q8, QStringLiteral("0.85"));  // "0", "0.", "0.8" on the way
  EXPECT_EQ(changed.count(), 0);
  EXPECT_TRUE(test::reconfigures(feed->sync()->command_log).empty());
  QTest::keyClick(q8, Qt::Key_Return);
  ASSERT_EQ(changed.count(), 1);
  const auto posted = test::reconfigures(feed->sync()->command_log);
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(posted.back().q8_threshold, 0.85f);
  // Leaving the box after typing commits too, once.
  QDoubleSpinBox* alpha = window->policyPanel()->spinBox(PolicyPanel::ewmaAlpha);
  alpha->setFocus();
  alpha->selectAll();
  QTest::keyClicks(alpha, QStringLiteral("0.35"));
  EXPECT_EQ(changed.count(), 1);
  q8->setFocus();
  ASSERT_EQ(changed.count(), 2);
  EXPECT_EQ(test::reconfigures(feed->sync()->command_log).back().ewma_alpha, 0.35f);
}

// A wheel event as the window system delivers it (spontaneous): only those travel on to the
// parent when a widget ignores them.
void wheel(QWidget* w, int notches) {
  const QPointF at = QRectF(w->rect()).center();
  QWheelEvent event(at, w->mapToGlobal(at), QPoint(), QPoint(0, 120 * notches), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
  QSpontaneKeyEvent::setSpontaneous(&event);
  qApp->notify(w, &event);  // as QTest sends key events: sendEvent() would make it non-spontaneous
}

TEST(Wheel, OnlyAFocusedControlTakesIt) {
  QScrollArea area;
  auto* panel = new PolicyPanel;
  area.setWidget(panel);
  area.setWidgetResizable(true);
  area.resize(360, 120);  // shorter than the panel: it scrolls
  WheelGuard::guard(&area);
  area.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&area));
  QScrollBar* bar = area.verticalScrollBar();
  ASSERT_GT(bar->maximum(), 0);
  QSignalSpy changed(panel, &PolicyPanel::policyChanged);
  QDoubleSpinBox* spin = panel->spinBox(PolicyPanel::hysteresis);
  QSlider* slider = panel->slider(PolicyPanel::ewmaAlpha);
  QComboBox* preset = panel->presetBox();
  const policy_config before = panel->config();
  area.setFocus();
  for (QWidget* w : std::initializer_list<QWidget*>{spin, slider, preset}) {
    EXPECT_NE(w->focusPolicy(), Qt::WheelFocus) << w->metaObject()->className();
    bar->setValue(0);
    wheel(w, -1);
    EXPECT_GT(bar->value(), 0) << w->metaObject()->className() << ": the panel scrolls";
  }
  EXPECT_EQ(changed.count(), 0);
  EXPECT_EQ(panel->config(), before);
  // Focused, the control takes the wheel (and the panel stays put).
  spin->setFocus();
  ASSERT_TRUE(spin->hasFocus());
  bar->setValue(0);
  wheel(spin, 1);
  EXPECT_EQ(changed.count(), 1);
  EXPECT_FLOAT_EQ(panel->config().hysteresis, before.hysteresis + 0.01f);
  EXPECT_EQ(bar->value(), 0);
  slider->setFocus();
  wheel(slider, 1);
  EXPECT_EQ(changed.count(), 2);
  EXPECT_NE(panel->config().ewma_alpha, before.ewma_alpha);
}

// The window guards its own controls, the run panel's and load panel's included.
TEST(Wheel, TheWindowGuardsEveryPanel) {
  auto window = test::makeWindow(test::smallSession());
  int guarded = 0;
  for (QWidget* w : window->findChildren<QWidget*>()) {
    const bool control = qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QComboBox*>(w) ||
                         (qobject_cast<QAbstractSlider*>(w) && !qobject_cast<QScrollBar*>(w));
    if (!control) continue;
    ++guarded;
    EXPECT_NE(w->focusPolicy(), Qt::WheelFocus) << w->metaObject()->className() << " "
                                                << w->objectName().toStdString();
  }
  EXPECT_GT(guarded, 20);
}

}  // namespace
}  // namespace kvscope::ui
