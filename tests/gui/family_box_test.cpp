// The policy panel's family chooser: each family shows only its own parameters, the controller's
// fields are disabled when they are not used, age edits stay valid, and a family chosen on a
// live run reaches the engine as a reconfigure.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>

#include <gtest/gtest.h>

#include "jobs/engine_bridge.hpp"
#include "panels/family_box.hpp"
#include "gui_test_support.hpp"
#include "window/main_window.hpp"
#include "panels/policy_panel.hpp"
#include "plots/pressure_plot.hpp"
#include "common/run_setup.hpp"

namespace kvscope::ui {
namespace {

void choose(QComboBox* box, const char* text) {
  const int i = box->findText(QString::fromLatin1(text));
  ASSERT_GE(i, 0) << text;
  box->setCurrentIndex(i);
}

TEST(FamilyBox, EachFamilyShowsItsOwnParameters) {
  PolicyPanel panel;
  panel.show();
  FamilyBox* f = panel.familyBox();
  EXPECT_EQ(f->familyBox()->currentText(), QStringLiteral("ewma"));
  EXPECT_FALSE(f->fixedLevelBox()->isVisible());
  EXPECT_FALSE(f->q8AgeBox()->isVisible());
  EXPECT_TRUE(panel.slider(PolicyPanel::q8Threshold)->isEnabled());

  choose(f->familyBox(), "age");
  EXPECT_TRUE(f->q8AgeBox()->isVisible());
  EXPECT_TRUE(f->q4AgeBox()->isVisible());
  EXPECT_TRUE(f->q3AgeBox()->isVisible());
  EXPECT_FALSE(f->sinkBox()->isVisible());
  EXPECT_FALSE(panel.slider(PolicyPanel::q8Threshold)->isEnabled());  // kept, not used
  EXPECT_FALSE(panel.minLevelBox()->isEnabled());

  choose(f->familyBox(), "sinks_recent");
  EXPECT_TRUE(f->fixedLevelBox()->isVisible());
  EXPECT_TRUE(f->sinkBox()->isVisible());
  EXPECT_TRUE(f->recentBox()->isVisible());
  EXPECT_FALSE(f->q8AgeBox()->isVisible());
  EXPECT_FALSE(f->q3AgeBox()->isVisible());

  choose(f->familyBox(), "ewma");
  EXPECT_TRUE(panel.slider(PolicyPanel::q8Threshold)->isEnabled());
}

TEST(FamilyBox, EditsEmitValidConfigsOfTheFamily) {
  PolicyPanel panel;
  QSignalSpy changed(&panel, &PolicyPanel::policyChanged);
  FamilyBox* f = panel.familyBox();
  choose(f->familyBox(), "age");
  ASSERT_EQ(changed.count(), 1);
  EXPECT_EQ(changed.back().at(0).value<policy_config>().family, policy_family::age);

  f->q8AgeBox()->setValue(3000);  // above q4's 2048: q4 moves up with it
  const auto moved = changed.back().at(0).value<policy_config>();
  EXPECT_EQ(moved.q8_age_tokens, 3000u);
  EXPECT_EQ(moved.q4_age_tokens, 3000u);
  EXPECT_EQ(validate(moved), std::nullopt);
  EXPECT_TRUE(panel.note().contains(QStringLiteral("q4 age moved up")));

  // q3 by age: off until set; set below q4 it starts at q4; q4 moved past it carries it.
  EXPECT_EQ(f->q3AgeBox()->text(), QStringLiteral("off"));
  EXPECT_FALSE(moved.q3_age_tokens);
  f->q3AgeBox()->setValue(100);
  EXPECT_EQ(changed.back().at(0).value<policy_config>().q3_age_tokens, 3000u);
  f->q3AgeBox()->setValue(5000);
  f->q4AgeBox()->setValue(6000);
  const auto q3 = changed.back().at(0).value<policy_config>();
  EXPECT_EQ(q3.q3_age_tokens, 6000u);
  EXPECT_EQ(validate(q3), std::nullopt);
  EXPECT_TRUE(panel.note().contains(QStringLiteral("q3 age moved up with q4")));
  f->q3AgeBox()->setValue(0);
  EXPECT_FALSE(changed.back().at(0).value<policy_config>().q3_age_tokens);

  choose(f->familyBox(), "static");
  choose(f->fixedLevelBox(), "q4");
  const auto fixed = changed.back().at(0).value<policy_config>();
  EXPECT_EQ(fixed.family, policy_family::fixed);
  EXPECT_EQ(fixed.fixed_level, precision::q4);
  EXPECT_EQ(fixed.q8_threshold, policy_config{}.q8_threshold);  // the controller's fields are kept

  // A config shown from a file or the engine does not echo back as a change.
  const auto before = changed.count();
  policy_config shown;
  shown.family = policy_family::sinks_recent;
  shown.sink_tokens = 16;
  ASSERT_TRUE(panel.setConfig(shown));
  EXPECT_EQ(changed.count(), before);
  EXPECT_EQ(f->familyBox()->currentText(), QStringLiteral("sinks_recent"));
  EXPECT_EQ(f->sinkBox()->value(), 16);
  EXPECT_EQ(panel.config(), shown);
}

TEST(FamilyBox, AFamilyChosenOnALiveRunReachesTheEngine) {
  runner* feed = nullptr;
  auto window = test::makeWindow(test::smallSession(), &feed);
  ASSERT_TRUE(test::stepAndShow(*window, *feed, 10));
  choose(window->policyPanel()->familyBox()->familyBox(), "age");
  const auto s = feed->sync();
  const auto posted = test::reconfigures(s->command_log);
  ASSERT_EQ(posted.size(), 1u);
  EXPECT_EQ(posted.back().family, policy_family::age);
  EXPECT_EQ(s->policy.family, policy_family::age);
  EXPECT_FALSE(window->pressurePlot()->thresholdsShown());  // no controller, no thresholds
  choose(window->policyPanel()->familyBox()->familyBox(), "ewma");
  EXPECT_TRUE(window->pressurePlot()->thresholdsShown());
}

// The headless equivalent names every option that is not at the CLI's default.
TEST(FamilyBox, TheCliEquivalentNamesTheFamilyAndTheGpu) {
  run_description s = demoSession();
  s.options.policy.family = policy_family::age;
  s.options.policy.q8_age_tokens = 256;
  s.options.gpu = "h100";
  const std::string cli = cliEquivalent(s);
  EXPECT_NE(cli.find(" --gpu h100"), std::string::npos) << cli;
  EXPECT_NE(cli.find(" --family age"), std::string::npos) << cli;
  EXPECT_NE(cli.find(" --q8-age-tokens 256"), std::string::npos) << cli;
  EXPECT_EQ(cli.find("--q4-age-tokens"), std::string::npos) << cli;  // at its default
}

}  // namespace
}  // namespace kvscope::ui
