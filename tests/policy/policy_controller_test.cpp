#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "policy/policy_controller.hpp"

namespace kvscope {
namespace {

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();

TEST(PolicyLevels, OrdinalsFactorsAndTags) {
  EXPECT_EQ(ordinal(precision::fp16), 0);
  EXPECT_EQ(ordinal(precision::q8), 1);
  EXPECT_EQ(ordinal(precision::fp8), 2);
  EXPECT_EQ(ordinal(precision::q4), 3);
  EXPECT_EQ(nominal_factor(precision::fp16), 1.0);
  EXPECT_EQ(nominal_factor(precision::q8), 0.5);
  EXPECT_EQ(nominal_factor(precision::fp8), 0.5);
  EXPECT_EQ(nominal_factor(precision::q4), 0.25);
  for (precision p : all_precisions) EXPECT_EQ(parse_precision(tag(p)), p);
  EXPECT_FALSE(parse_precision("FP16").has_value());
  EXPECT_FALSE(parse_precision("int4").has_value());
}

TEST(PolicyConfig, DefaultsAndPresets) {
  const policy_config d;
  EXPECT_EQ(d.q8_threshold, 0.80f);
  EXPECT_EQ(d.q4_threshold, 0.95f);
  EXPECT_EQ(d.hysteresis, 0.05f);
  EXPECT_EQ(d.ewma_alpha, 0.20f);
  EXPECT_EQ(d.min_level, precision::fp16);
  EXPECT_EQ(d.max_level, precision::q4);
  EXPECT_EQ(*policy_preset("default"), d);
  auto fp16_only = d;
  fp16_only.max_level = precision::fp16;
  EXPECT_EQ(*policy_preset("fp16_only"), fp16_only);
  policy_config aggressive;
  aggressive.q8_threshold = 0.50f;
  aggressive.q4_threshold = 0.80f;
  aggressive.ewma_alpha = 0.30f;
  aggressive.min_level = precision::q8;
  EXPECT_EQ(*policy_preset("aggressive"), aggressive);
  EXPECT_FALSE(policy_preset("nope").has_value());
  for (auto name : policy_preset_names()) EXPECT_FALSE(validate(*policy_preset(name)));
}

TEST(PolicyConfig, ValidationOrderFirstFailureWins) {
  policy_config c;
  c.q8_threshold = 2.0f;
  c.q4_threshold = -1.0f;
  c.ewma_alpha = 5.0f;
  EXPECT_EQ(*validate(c), "q8_threshold must be in [0.0, 1.0]");
  c.q8_threshold = 0.9f;
  EXPECT_EQ(*validate(c), "q4_threshold must be in [0.0, 1.0]");
  c.q4_threshold = 0.5f;
  EXPECT_EQ(*validate(c), "q4_threshold must be >= q8_threshold");
  c.q4_threshold = 0.95f;
  c.hysteresis = 1.5f;
  EXPECT_EQ(*validate(c), "hysteresis must be in [0.0, 1.0]");
  c.hysteresis = 0.0f;
  EXPECT_EQ(*validate(c), "ewma_alpha must be in [0.0, 1.0]");
  c.ewma_alpha = 1.0f;
  c.min_level = precision::q4;
  c.max_level = precision::q8;
  EXPECT_EQ(*validate(c), "min_level must be <= max_level (less compact)");
  c.max_level = precision::q4;
  EXPECT_FALSE(validate(c));
}

TEST(PolicyConfig, NanFailsItsRangeCheck) {
  const float nan_f = std::numeric_limits<float>::quiet_NaN();
  for (float policy_config::*field : {&policy_config::q8_threshold, &policy_config::q4_threshold,
                                      &policy_config::hysteresis, &policy_config::ewma_alpha}) {
    policy_config c;
    c.*field = nan_f;
    ASSERT_TRUE(validate(c).has_value());
    EXPECT_NE(validate(c)->find("must be in [0.0, 1.0]"), std::string::npos) << *validate(c);
  }
  EXPECT_EQ(invalid_policy_message("x"), "invalid kv-cache policy configuration: x");
}

TEST(PolicyConfig, FormatFloatIsShortestExact) {
  EXPECT_EQ(format_float(0.8f), "0.8");
  EXPECT_EQ(format_float(0.05f), "0.05");
  EXPECT_EQ(describe(policy_config{}),
            "q8_threshold=0.8 q4_threshold=0.95 hysteresis=0.05 ewma_alpha=0.2 levels=fp16..q4");
}

TEST(PolicyController, AlphaIsTheWidenedFloat) {
  policy_controller c;
  (void)c.observe(0.0);
  (void)c.observe(1.0);
  // a·1 + (1−a)·0 with a = double(0.2f), not 0.2.
  EXPECT_EQ(c.ewma(), static_cast<double>(0.2f));
  EXPECT_NE(c.ewma(), 0.2);
}

TEST(PolicyController, NonFiniteObservationChangesNothing) {
  policy_controller c;
  (void)c.observe(0.9);
  (void)c.observe(0.99);
  const auto before = c.state();
  for (double bad : {nan_value, std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity()}) {
    const auto r = c.observe(bad);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error(), observe_error::non_finite_pressure);
    EXPECT_EQ(c.state(), before);
  }
}

TEST(PolicyController, ResetRestoresInitialState) {
  policy_controller c(*policy_preset("aggressive"));
  EXPECT_EQ(c.level(), precision::q8);
  for (int i = 0; i < 20; ++i) (void)c.observe(1.0);
  EXPECT_EQ(c.level(), precision::q4);
  EXPECT_EQ(c.upgrades(), 1u);
  c.reset();
  EXPECT_EQ(c.state(), (policy_state{precision::q8, 0.0, 0, 0, 0}));
  (void)c.observe(0.3);  // first sample after reset seeds the EWMA again
  EXPECT_EQ(c.ewma(), 0.3);
}

TEST(PolicyController, ReconfigureKeepsStateAndClampsLevelSilently) {
  policy_controller c;
  for (int i = 0; i < 30; ++i) (void)c.observe(1.0);
  ASSERT_EQ(c.level(), precision::q4);
  const auto before = c.state();

  auto capped = policy_config{};
  capped.max_level = precision::q8;
  ASSERT_TRUE(c.reconfigure(capped).has_value());
  EXPECT_EQ(c.level(), precision::q8);
  EXPECT_EQ(c.ewma(), before.ewma);
  EXPECT_EQ(c.samples(), before.samples);
  EXPECT_EQ(c.upgrades(), before.upgrades);
  EXPECT_EQ(c.downgrades(), before.downgrades);
  EXPECT_EQ(c.config(), capped);

  auto bad = capped;
  bad.q4_threshold = 0.1f;
  const auto r = c.reconfigure(bad);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), "q4_threshold must be >= q8_threshold");
  EXPECT_EQ(c.config(), capped);
}

TEST(PolicyController, ReconfiguredThresholdsApplyFromTheNextObservation) {
  policy_controller c;
  (void)c.observe(0.6);
  EXPECT_EQ(c.level(), precision::fp16);
  ASSERT_TRUE(c.reconfigure(*policy_preset("aggressive")).has_value());
  EXPECT_EQ(c.level(), precision::q8);  // clamped up to the new min_level, not counted
  EXPECT_EQ(c.upgrades(), 0u);
  (void)c.observe(0.6);
  EXPECT_EQ(c.level(), precision::q8);
}

TEST(PolicyController, DecideIsPureAndFollowsHysteresis) {
  policy_controller c;
  EXPECT_EQ(c.decide(precision::q4, 0.93), precision::q4);   // inside band below q4
  EXPECT_EQ(c.decide(precision::q4, 0.89), precision::q8);   // below q4 − h
  EXPECT_EQ(c.decide(precision::q4, 0.10), precision::fp16); // straight to fp16
  EXPECT_EQ(c.decide(precision::q8, 0.76), precision::q8);   // inside band below q8
  EXPECT_EQ(c.decide(precision::q8, 0.74), precision::fp16);
  EXPECT_EQ(c.decide(precision::fp8, 0.10), precision::fp16); // fp8 has no band
  EXPECT_EQ(c.samples(), 0u);
}

TEST(PolicyController, InvalidConfigThrowsWithReferenceMessage) {
  policy_config c;
  c.ewma_alpha = 1.2f;
  try {
    policy_controller controller(c);
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "invalid kv-cache policy configuration: ewma_alpha must be in [0.0, 1.0]");
  }
}

}  // namespace
}  // namespace kvscope
