// The policy panel: a slider change reaches the engine as a reconfigure_command, the bands
// move at once, and no invalid config can leave the panel.
#include <QComboBox>
#include <QSettings>
#include <QDoubleSpinBox>
#include <QSignalSpy>
#include <QSlider>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <utility>

#include "gui_test_support.hpp"
#include "plots/block_map_widget.hpp"
#include "window/main_window.hpp"
#include "panels/policy_panel.hpp"
#include "jobs/engine_bridge.hpp"
#include "plots/pressure_plot.hpp"
#include "run/option_table.hpp"

namespace kvscope::ui {
namespace {

// The real runner's snapshot: its command log has the reconfigure, logged before the step it
// was applied at, and the engine runs the new policy.
TEST(PolicyPanel, SliderChangeReachesTheEnginesPolicyAndMovesTheBands) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  ASSERT_TRUE(test::stepAndShow(*window, *feed, 12));
  QSlider* q8 = window->policyPanel()->slider(PolicyPanel::q8Threshold);
  q8->setValue(700);
  // Same event: the plot's line is already where the slider is, before any engine round trip.
  EXPECT_DOUBLE_EQ(window->pressurePlot()->q8LineValue(), static_cast<double>(0.7f));
  EXPECT_EQ(window->policyPanel()->spinBox(PolicyPanel::q8Threshold)->value(), 0.7);
  const auto s = feed->sync();
  const auto posted = test::reconfigures(s->command_log);
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(posted.back().q8_threshold, 0.7f);
  EXPECT_EQ(posted.back().q4_threshold, 0.95f);
  EXPECT_EQ(s->command_log.back().step, 12u);
  EXPECT_EQ(s->policy, posted.back());
  // The window shows the engine's confirmation without pulling the slider back.
  ASSERT_TRUE(test::waitFor([&] { return window->bridge()->current() == feed->latest(); }));
  EXPECT_EQ(q8->value(), 700);
}

TEST(PolicyPanel, KeyboardOnASliderPostsAReconfigure) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  window->show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
  QSlider* alpha = window->policyPanel()->slider(PolicyPanel::ewmaAlpha);
  alpha->setFocus();
  QTest::keyClick(alpha, Qt::Key_PageUp);
  const auto posted = test::reconfigures(feed->sync()->command_log);
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(posted.back().ewma_alpha, 0.25f);
  EXPECT_EQ(feed->latest()->policy.ewma_alpha, 0.25f);
}

TEST(PolicyPanel, MovingQ8AboveQ4CarriesQ4Along) {
  PolicyPanel panel;
  QSignalSpy changed(&panel, &PolicyPanel::policyChanged);
  panel.slider(PolicyPanel::q8Threshold)->setValue(970);
  const policy_config c = panel.config();
  EXPECT_EQ(c.q8_threshold, 0.97f);
  EXPECT_EQ(c.q4_threshold, 0.97f);
  EXPECT_FALSE(validate(c));
  EXPECT_TRUE(panel.note().contains(QStringLiteral("q4_threshold must be >= q8_threshold")));
  ASSERT_EQ(changed.count(), 1);
  EXPECT_EQ(changed.front().front().value<policy_config>(), c);
}

TEST(PolicyPanel, MovingQ4BelowQ8CarriesQ8Along) {
  PolicyPanel panel;
  panel.spinBox(PolicyPanel::q4Threshold)->setValue(0.6);
  EXPECT_EQ(panel.config().q8_threshold, 0.6f);
  EXPECT_EQ(panel.config().q4_threshold, 0.6f);
  EXPECT_EQ(panel.slider(PolicyPanel::q8Threshold)->value(), 600);
}

TEST(PolicyPanel, MinLevelAboveMaxCarriesMax) {
  PolicyPanel panel;
  panel.maxLevelBox()->setCurrentIndex(ordinal(precision::q8));
  panel.minLevelBox()->setCurrentIndex(ordinal(precision::q4));
  EXPECT_EQ(panel.config().min_level, precision::q4);
  EXPECT_EQ(panel.config().max_level, precision::q4);
  panel.maxLevelBox()->setCurrentIndex(ordinal(precision::fp16));
  EXPECT_EQ(panel.config().min_level, precision::fp16);
  EXPECT_FALSE(validate(panel.config()));
}

TEST(PolicyPanel, OnlyValidConfigsLeaveThePanel) {
  PolicyPanel panel;
  QSignalSpy changed(&panel, &PolicyPanel::policyChanged);
  std::mt19937 rng(5);
  for (int i = 0; i < 400; ++i) {
    const int what = static_cast<int>(rng() % (PolicyPanel::fieldCount + 2));
    if (what < PolicyPanel::fieldCount) {
      panel.slider(static_cast<PolicyPanel::Field>(what))->setValue(static_cast<int>(rng() % 1001));
    } else {
      (what == PolicyPanel::fieldCount ? panel.minLevelBox() : panel.maxLevelBox())
          ->setCurrentIndex(static_cast<int>(rng() % kv_level_count));
    }
  }
  ASSERT_GT(changed.count(), 300);
  bool reachedQ3 = false;
  for (const auto& args : changed) {
    const auto reason = validate(args.front().value<policy_config>());
    EXPECT_FALSE(reason) << *reason;
    reachedQ3 = reachedQ3 || args.front().value<policy_config>().q3_threshold.has_value();
  }
  EXPECT_TRUE(reachedQ3) << "the random walk never set a q3 threshold";
}

TEST(PolicyPanel, PresetsLoadAndEditsMakeItCustom) {
  PolicyPanel panel;
  QSignalSpy changed(&panel, &PolicyPanel::policyChanged);
  QComboBox* presets = panel.presetBox();
  const int aggressive = presets->findText(QStringLiteral("aggressive"));
  ASSERT_GE(aggressive, 0);
  presets->setCurrentIndex(aggressive);
  Q_EMIT presets->activated(aggressive);
  EXPECT_EQ(panel.config(), *policy_preset("aggressive"));
  EXPECT_EQ(changed.count(), 1);
  panel.slider(PolicyPanel::hysteresis)->setValue(100);
  EXPECT_EQ(presets->currentText(), QStringLiteral("custom"));
}

// The q3 threshold is shown with max level q3 and starts off (0); set, it starts no lower than
// q4; q4 moved above it carries it; a max level short of q3 turns it off and hides it again.
TEST(PolicyPanel, Q3ThresholdKeepsTheConfigValid) {
  PolicyPanel panel;
  QSignalSpy changed(&panel, &PolicyPanel::policyChanged);
  QDoubleSpinBox* q3 = panel.spinBox(PolicyPanel::q3Threshold);
  EXPECT_TRUE(q3->isHidden());
  EXPECT_TRUE(panel.slider(PolicyPanel::q3Threshold)->isHidden());
  panel.maxLevelBox()->setCurrentIndex(ordinal(precision::q3));
  EXPECT_FALSE(q3->isHidden());
  EXPECT_EQ(q3->value(), 0.0);
  EXPECT_EQ(q3->text(), QStringLiteral("off"));
  q3->setValue(0.98);
  EXPECT_EQ(panel.config().q3_threshold, 0.98f);
  EXPECT_EQ(panel.config().max_level, precision::q3);

  panel.slider(PolicyPanel::q3Threshold)->setValue(500);  // below q4's 0.95: starts at q4
  EXPECT_EQ(panel.config().q3_threshold, 0.95f);
  EXPECT_EQ(panel.config().q4_threshold, 0.95f);
  EXPECT_EQ(panel.config().q8_threshold, policy_config{}.q8_threshold);

  panel.spinBox(PolicyPanel::q4Threshold)->setValue(0.97);
  EXPECT_EQ(panel.config().q3_threshold, 0.97f);
  EXPECT_TRUE(panel.note().contains(QStringLiteral("q3 threshold moved up with q4")));

  panel.maxLevelBox()->setCurrentIndex(ordinal(precision::q4));
  EXPECT_FALSE(panel.config().q3_threshold);
  EXPECT_EQ(q3->text(), QStringLiteral("off"));
  EXPECT_TRUE(q3->isHidden());
  EXPECT_TRUE(panel.note().contains(QStringLiteral("q3 threshold off")));

  q3->setValue(0.99);  // the hidden box set anyway (as a test can): it takes the max level along
  EXPECT_EQ(panel.config().max_level, precision::q3);
  EXPECT_TRUE(panel.note().contains(QStringLiteral("needs max_level q3"))) << panel.note().toStdString();
  for (const auto& args : changed) {
    const auto reason = validate(args.front().value<policy_config>());
    EXPECT_FALSE(reason) << *reason;
  }
}

TEST(PolicyPanel, SetConfigRefusesInvalidAndDoesNotEmit) {
  PolicyPanel panel;
  QSignalSpy changed(&panel, &PolicyPanel::policyChanged);
  policy_config bad;
  bad.q4_threshold = 0.5f;
  EXPECT_FALSE(panel.setConfig(bad));
  EXPECT_EQ(panel.config(), policy_config{});
  EXPECT_TRUE(panel.note().contains(QStringLiteral("q4_threshold must be >= q8_threshold")));
  policy_config good = *policy_preset("aggressive");
  EXPECT_TRUE(panel.setConfig(good));
  EXPECT_EQ(panel.config(), good);
  EXPECT_EQ(changed.count(), 0);
}

// The four numbers take the ranges kvscope-cli's flags accept, from core's option table.
TEST(PolicyPanel, FieldRangesAreTheOptionTables) {
  PolicyPanel panel;
  const std::pair<PolicyPanel::Field, const char*> fields[] = {{PolicyPanel::q8Threshold, "q8-threshold"},
                                                               {PolicyPanel::q4Threshold, "q4-threshold"},
                                                               {PolicyPanel::hysteresis, "hysteresis"},
                                                               {PolicyPanel::ewmaAlpha, "ewma-alpha"},
                                                               {PolicyPanel::q3Threshold, "q3-threshold"}};
  for (const auto& [field, flag] : fields) {
    const option_spec* spec = find_option(flag);
    ASSERT_NE(spec, nullptr) << flag;
    EXPECT_EQ(panel.spinBox(field)->minimum(), spec->min) << flag;
    EXPECT_EQ(panel.spinBox(field)->maximum(), spec->max) << flag;
    EXPECT_EQ(panel.slider(field)->maximum(), static_cast<int>(std::lround(spec->max * 1000))) << flag;
  }
  EXPECT_EQ(panel.minLevelBox()->count(), static_cast<int>(kv_level_count));
  EXPECT_EQ(panel.maxLevelBox()->itemText(3), QStringLiteral("q4"));
  EXPECT_EQ(panel.maxLevelBox()->itemText(4), QStringLiteral("q3"));
}

TEST(MainWindow, RunShortcutsPostCommands) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  window->show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
  window->activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(window.get()));
  ASSERT_TRUE(test::waitFor([&] { return window->bridge()->current() != nullptr; }));
  QTest::keyClick(window.get(), Qt::Key_Space);  // the test runner starts paused: play
  QTest::keyClick(window.get(), Qt::Key_N);      // one step, then pause
  const auto log = feed->sync()->command_log;
  ASSERT_EQ(log.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<play_command>(log[0].command));
  ASSERT_TRUE(std::holds_alternative<step_command>(log[1].command));
  EXPECT_EQ(std::get<step_command>(log[1].command).steps, 1u);
}

}  // namespace
}  // namespace kvscope::ui

namespace kvscope::ui {
namespace {

// Theme, colour mode and dock layout come back in the next window (QSettings; the test main
// puts QStandardPaths in test mode so this never touches the user's settings).
TEST(MainWindow, SettingsPersistAcrossWindows) {
  ASSERT_TRUE(QSettings().fileName().contains(QStringLiteral("qttest"))) << QSettings().fileName().toStdString();
  QSettings().clear();
  MainWindow::Options options;
  const run_description s = test::smallSession();
  {
    MainWindow first(test::makeTestRunner(s), s, 0, options);
    first.show();
    first.setDarkTheme(true);
    first.setBlockColorMode(BlockColorMode::bySequence);
    first.close();
  }
  MainWindow second(test::makeTestRunner(s), s, 0, options);
  EXPECT_TRUE(second.isDarkTheme());
  EXPECT_EQ(second.blockMap()->colorMode(), BlockColorMode::bySequence);
  second.setDarkTheme(false);  // leave the application palette as the other tests expect
  QSettings().clear();
}

}  // namespace
}  // namespace kvscope::ui
