// Every reference case, step by step: same level, EWMA within 1e-12, same validation message.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "policy/policy_controller.hpp"
#include "policy_cases.hpp"

namespace kvscope::test {

namespace {

TEST(PolicyReference, AllCasesPresent) {
  const auto cases = load_policy_cases();
  EXPECT_EQ(cases.size(), 44u);
  int invalid = 0;
  for (const auto& c : cases) invalid += c.error.has_value();
  EXPECT_EQ(invalid, 5);
}

TEST(PolicyReference, EveryCaseMatchesStepByStep) {
  for (const auto& c : load_policy_cases()) {
    SCOPED_TRACE(c.name);
    const auto reason = validate(c.config);
    if (c.error) {
      ASSERT_TRUE(reason.has_value());
      EXPECT_EQ(invalid_policy_message(*reason), *c.error);
      EXPECT_THROW(policy_controller{c.config}, std::invalid_argument);
      continue;
    }
    ASSERT_FALSE(reason.has_value()) << *reason;
    policy_controller controller(c.config);
    ASSERT_EQ(c.pressures.size(), c.levels.size());
    for (std::size_t i = 0; i < c.pressures.size(); ++i) {
      const auto level = controller.observe(c.pressures[i]);
      ASSERT_TRUE(level.has_value());
      ASSERT_EQ(tag(*level), c.levels[i]) << "step " << i;
      ASSERT_EQ(controller.level(), *level);
      ASSERT_NEAR(controller.ewma(), c.ewma[i], 1e-12) << "step " << i;
    }
    EXPECT_EQ(controller.samples(), c.pressures.size());
  }
}

// The counters follow the expected levels: each change of ordinal counts once, up or down.
TEST(PolicyReference, CountersFollowTransitions) {
  for (const auto& c : load_policy_cases()) {
    if (c.error) continue;
    SCOPED_TRACE(c.name);
    policy_controller controller(c.config);
    std::uint64_t ups = 0, downs = 0;
    int previous = ordinal(c.config.min_level);
    for (std::size_t i = 0; i < c.pressures.size(); ++i) {
      (void)controller.observe(c.pressures[i]);
      const int now = ordinal(*parse_precision(c.levels[i]));
      ups += now > previous;
      downs += now < previous;
      previous = now;
    }
    EXPECT_EQ(controller.upgrades(), ups);
    EXPECT_EQ(controller.downgrades(), downs);
  }
}

// The engine's single-writer path leaves the same state as observe() after every sample: level,
// EWMA bit for bit, sample count and both counters (non-finite samples rejected alike).
TEST(PolicyReference, ObserveAloneMatchesObserveStepByStep) {
  for (const auto& c : load_policy_cases()) {
    if (c.error) continue;
    SCOPED_TRACE(c.name);
    policy_controller shared(c.config), alone(c.config);
    std::vector<double> pressures = c.pressures;
    pressures.insert(pressures.begin() + static_cast<std::ptrdiff_t>(pressures.size() / 2),
                     std::numeric_limits<double>::quiet_NaN());
    for (std::size_t i = 0; i < pressures.size(); ++i) {
      const auto a = shared.observe(pressures[i]);
      const auto b = alone.observe_alone(pressures[i]);
      ASSERT_EQ(a.has_value(), b.has_value()) << "step " << i;
      if (a) {
        ASSERT_EQ(*a, *b) << "step " << i;
      }
      ASSERT_EQ(shared.state(), alone.state()) << "step " << i;
      ASSERT_EQ(std::bit_cast<std::uint64_t>(shared.ewma()), std::bit_cast<std::uint64_t>(alone.ewma()));
    }
  }
}

}  // namespace
}  // namespace kvscope::test
