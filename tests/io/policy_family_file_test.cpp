// Policy files of the families: round trips, the exact text written, and clear refusals.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "io/toml_checked.hpp"  // before anything else that reads toml++

#include "io/policy_file.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

using test::temp_dir;

std::vector<policy_config> family_configs() {
  policy_config fixed, age, sinks;
  fixed.family = policy_family::fixed;
  fixed.fixed_level = precision::fp8;
  age.family = policy_family::age;
  age.q8_age_tokens = 100;
  age.q4_age_tokens = 4000;
  sinks.family = policy_family::sinks_recent;
  sinks.sink_tokens = 4;
  sinks.recent_tokens = 1000;
  sinks.fixed_level = precision::q4;
  sinks.q8_threshold = 0.6f;  // the controller's fields are kept, though unused
  return {fixed, age, sinks};
}

TEST(PolicyFamilyFile, RoundTripJsonTomlJson) {
  temp_dir dir;
  for (const auto& config : family_configs()) {
    SCOPED_TRACE(describe(config));
    for (const char* ext : {".json", ".toml"}) {
      const auto path = dir.file(std::string(family_name(config.family)) + ext);
      ASSERT_TRUE(write_policy_config(path, config).has_value());
      const auto back = read_policy_config(path);
      ASSERT_TRUE(back.has_value()) << back.error();
      EXPECT_EQ(*back, config);
    }
  }
}

TEST(PolicyFamilyFile, EwmaWritesNoExtraField) {
  for (const auto format : {config_format::json, config_format::toml}) {
    const auto text = serialize_policy_config(policy_config{}, format);
    for (const char* key : {"family", "fixed_level", "age_tokens", "sink_tokens", "recent_tokens"}) {
      EXPECT_EQ(text.find(key), std::string::npos) << key << " in\n" << text;
    }
  }
}

TEST(PolicyFamilyFile, WritesTheFamilyAndItsParametersOnly) {
  const auto configs = family_configs();
  EXPECT_EQ(serialize_policy_config(configs[1], config_format::toml),
            "q8_threshold = 0.8\nq4_threshold = 0.95\nhysteresis = 0.05\newma_alpha = 0.2\n"
            "min_level = \"fp16\"\nmax_level = \"q4\"\nfamily = \"age\"\nq8_age_tokens = 100\n"
            "q4_age_tokens = 4000\n");
  const auto json = serialize_policy_config(configs[2], config_format::json);
  EXPECT_NE(json.find("  \"max_level\": \"q4\",\n  \"family\": \"sinks_recent\",\n  \"sink_tokens\": 4,\n"
                      "  \"recent_tokens\": 1000,\n  \"fixed_level\": \"q4\"\n}"),
            std::string::npos)
      << json;
}

// kvscope's q3 keys are written only when set, and read back.
TEST(PolicyFamilyFile, TheQ3KeysRoundTrip) {
  policy_config age;
  age.family = policy_family::age;
  age.q3_age_tokens = 4096;
  const std::string toml = serialize_policy_config(age, config_format::toml);
  EXPECT_NE(toml.find("q4_age_tokens = 2048\nq3_age_tokens = 4096\n"), std::string::npos) << toml;
  EXPECT_EQ(*parse_policy_config(toml, config_format::toml, "cfg"), age);
  const auto ewma = parse_policy_config("{\"max_level\": \"q3\", \"q3_threshold\": 0.98}", config_format::json, "cfg");
  ASSERT_TRUE(ewma.has_value()) << ewma.error();
  EXPECT_EQ(ewma->q3_threshold, 0.98f);
  EXPECT_EQ(*parse_policy_config(serialize_policy_config(*ewma, config_format::json), config_format::json, "cfg"),
            *ewma);
}

TEST(PolicyFamilyFile, AcceptsTheIssuesSpellingAndKeysInAnyOrder) {
  const auto c = parse_policy_config("recent_tokens = 8\nfamily = \"sinks+recent\"\n", config_format::toml, "cfg");
  ASSERT_TRUE(c.has_value()) << c.error();
  EXPECT_EQ(c->family, policy_family::sinks_recent);
  EXPECT_EQ(c->recent_tokens, 8u);
}

struct bad_case {
  const char* name;
  config_format format;
  const char* text;
  const char* message;
};

class BadFamilyFile : public ::testing::TestWithParam<bad_case> {};

TEST_P(BadFamilyFile, NamesTheField) {
  const auto& c = GetParam();
  const auto r = parse_policy_config(c.text, c.format, "cfg");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadFamilyFile,
    ::testing::Values(
        bad_case{"unknown_family", config_format::json, "{\n  \"family\": \"lru\"\n}",
                 "cfg:2: 'family': unknown family 'lru' (expected ewma, static, age or sinks_recent)"},
        bad_case{"family_not_string", config_format::toml, "family = 2\n",
                 "cfg:1: 'family' must be a string, got integer"},
        bad_case{"q3_age_not_age", config_format::toml, "family = \"static\"\nq3_age_tokens = 5000\n",
                 "cfg:2: 'q3_age_tokens' is a parameter of the age family, not of static"},
        bad_case{"q3_threshold_below_q4", config_format::toml, "max_level = \"q3\"\nq3_threshold = 0.5\n",
                 "cfg: invalid kv-cache policy configuration: q3_threshold must be >= q4_threshold"},
        bad_case{"q3_threshold_not_number", config_format::toml, "q3_threshold = \"high\"\n",
                 "cfg:1: 'q3_threshold' must be a number, got string"},
        bad_case{"age_m_below_n", config_format::toml,
                 "family = \"age\"\nq8_age_tokens = 300\nq4_age_tokens = 200\n",
                 "cfg: invalid kv-cache policy configuration: q4_age_tokens must be >= q8_age_tokens"},
        bad_case{"other_familys_parameter", config_format::toml, "family = \"age\"\nsink_tokens = 4\n",
                 "cfg:2: 'sink_tokens' is a parameter of the sinks_recent family, not of age"},
        bad_case{"parameter_without_family", config_format::json, "{\"q8_age_tokens\": 4}",
                 "cfg:1: 'q8_age_tokens' is a parameter of the age family, not of ewma"},
        bad_case{"fixed_level_for_age", config_format::toml, "family = \"age\"\nfixed_level = \"q8\"\n",
                 "cfg:2: 'fixed_level' is a parameter of the static and sinks_recent families, not of age"},
        bad_case{"fractional_tokens", config_format::toml, "family = \"age\"\nq8_age_tokens = 1.5\n",
                 "cfg:2: 'q8_age_tokens' must be a whole number in [0, 2147483648], got 1.5"},
        bad_case{"negative_tokens", config_format::json, "{\"family\": \"sinks_recent\", \"recent_tokens\": -1}",
                 "cfg:1: 'recent_tokens' must be a whole number in [0, 2147483648], got -1"},
        bad_case{"unknown_fixed_level", config_format::toml, "family = \"static\"\nfixed_level = \"int4\"\n",
                 "cfg:2: 'fixed_level': unknown level 'int4' (expected fp16, q8, fp8, q4 or q3)"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace kvscope
