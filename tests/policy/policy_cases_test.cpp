// Every reference case, step by step: same level, EWMA within 1e-12, same validation message.
#include <gtest/gtest.h>

#include <fstream>

#include "policy/policy_controller.hpp"
#include "policy_cases.hpp"

namespace kvscope::test {

std::vector<policy_case> load_policy_cases() {
  std::ifstream in(data_path("policy_cases.jsonl"));
  EXPECT_TRUE(in) << "missing " << data_path("policy_cases.jsonl");
  std::vector<policy_case> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line);
    policy_case c;
    c.name = j.at("name");
    c.config_json = j.at("config");
    const auto& cfg = c.config_json;
    c.config.q8_threshold = cfg.at("q8_threshold").get<float>();
    c.config.q4_threshold = cfg.at("q4_threshold").get<float>();
    c.config.hysteresis = cfg.at("hysteresis").get<float>();
    c.config.ewma_alpha = cfg.at("ewma_alpha").get<float>();
    c.config.min_level = *parse_precision(cfg.at("min_level").get<std::string>());
    c.config.max_level = *parse_precision(cfg.at("max_level").get<std::string>());
    if (j.contains("error")) {
      c.error = j.at("error").get<std::string>();
    } else {
      c.pressures = j.at("pressures").get<std::vector<double>>();
      c.levels = j.at("levels").get<std::vector<std::string>>();
      c.ewma = j.at("ewma").get<std::vector<double>>();
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

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

}  // namespace
}  // namespace kvscope::test
