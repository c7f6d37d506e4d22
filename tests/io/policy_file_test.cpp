#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/toml_checked.hpp"  // before anything else that reads toml++

#include "io/policy_file.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

using test::temp_dir;
using test::read_text;
using test::write_text;

TEST(PolicyFile, RoundTripJsonTomlJsonIsLosslessForEveryPreset) {
  temp_dir dir;
  for (auto name : policy_preset_names()) {
    SCOPED_TRACE(std::string(name));
    const auto preset = *policy_preset(name);
    const auto json1 = dir.file(std::string(name) + "-1.json");
    const auto toml = dir.file(std::string(name) + ".toml");
    const auto json2 = dir.file(std::string(name) + "-2.json");
    ASSERT_TRUE(write_policy_config(json1, preset).has_value());
    const auto a = read_policy_config(json1);
    ASSERT_TRUE(a.has_value()) << a.error();
    ASSERT_TRUE(write_policy_config(toml, *a).has_value());
    const auto b = read_policy_config(toml);
    ASSERT_TRUE(b.has_value()) << b.error();
    ASSERT_TRUE(write_policy_config(json2, *b).has_value());
    const auto c = read_policy_config(json2);
    ASSERT_TRUE(c.has_value()) << c.error();
    EXPECT_EQ(*a, preset);
    EXPECT_EQ(*b, preset);
    EXPECT_EQ(*c, preset);
    EXPECT_EQ(read_text(json1), read_text(json2));
  }
}

TEST(PolicyFile, OddFloatsSurviveBothFormats) {
  policy_config c;
  c.q8_threshold = 0.123456789f;
  c.q4_threshold = 0.987654321f;
  c.hysteresis = 1e-7f;
  c.ewma_alpha = 1.0f;
  c.min_level = precision::fp8;
  for (auto fmt : {config_format::json, config_format::toml}) {
    const auto text = serialize_policy_config(c, fmt);
    const auto back = parse_policy_config(text, fmt, "mem");
    ASSERT_TRUE(back.has_value()) << back.error() << "\n" << text;
    EXPECT_EQ(*back, c) << text;
  }
}

TEST(PolicyFile, WritesExactFieldNamesAndShortFloats) {
  const auto json = serialize_policy_config(policy_config{}, config_format::json);
  EXPECT_NE(json.find("\"q8_threshold\": 0.8,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"min_level\": \"fp16\""), std::string::npos) << json;
  const auto toml = serialize_policy_config(policy_config{}, config_format::toml);
  EXPECT_NE(toml.find("q8_threshold = 0.8\n"), std::string::npos) << toml;
  EXPECT_NE(toml.find("ewma_alpha = 0.2\n"), std::string::npos) << toml;
  EXPECT_NE(toml.find("max_level = \"q4\""), std::string::npos) << toml;
}

TEST(PolicyFile, ProvenanceIsWrittenAndIgnoredOnRead) {
  policy_provenance p;
  p.load = "gen:rate=4";
  p.model = "llama3-8b \"quoted\" \\ back\tslash";
  p.budget_bytes = 17179869184ull;
  p.metrics = {{"peak_usage", 0.97}, {"preemptions", 3}};
  const auto preset = *policy_preset("aggressive");
  for (auto fmt : {config_format::json, config_format::toml}) {
    const auto text = serialize_policy_config(preset, fmt, &p);
    EXPECT_NE(text.find("provenance"), std::string::npos);
    EXPECT_NE(text.find("llama3-8b"), std::string::npos);
    if (fmt == config_format::toml) {
      const auto doc = toml::parse(text);
      EXPECT_EQ(doc["provenance"]["model"].value_or(std::string()), p.model);
      EXPECT_EQ(doc["provenance"]["metrics"]["peak_usage"].value_or(0.0), 0.97);
    }
    EXPECT_NE(text.find("peak_usage"), std::string::npos);
    const auto back = parse_policy_config(text, fmt, "mem");
    ASSERT_TRUE(back.has_value()) << back.error() << "\n" << text;
    EXPECT_EQ(*back, preset);
    EXPECT_EQ(text.find("q4_format"), std::string::npos) << "plain q4 writes nothing";
  }
  // The q4 level's storage, when the figures were measured with q4o.
  p.q4_format = "q4o";
  p.q4o_channels = 4;
  const auto json = nlohmann::json::parse(serialize_policy_config(preset, config_format::json, &p));
  EXPECT_EQ(json["provenance"]["q4_format"], "q4o");
  EXPECT_EQ(json["provenance"]["q4o_channels"], 4);
  const auto toml_doc = toml::parse(serialize_policy_config(preset, config_format::toml, &p));
  EXPECT_EQ(toml_doc["provenance"]["q4_format"].value_or(std::string()), "q4o");
  EXPECT_EQ(toml_doc["provenance"]["q4o_channels"].value_or(0), 4);
}

TEST(PolicyFile, MissingKeysTakeDefaults) {
  const auto c = parse_policy_config(R"({"q8_threshold": 0.7})", config_format::json, "x.json");
  ASSERT_TRUE(c.has_value()) << c.error();
  policy_config expected;
  expected.q8_threshold = 0.7f;
  EXPECT_EQ(*c, expected);
}

struct malformed_case {
  const char* name;
  config_format format;
  const char* text;
  const char* message;  // the whole error line
};

class MalformedPolicyFile : public ::testing::TestWithParam<malformed_case> {};

TEST_P(MalformedPolicyFile, GivesItsOwnClearMessage) {
  const auto& c = GetParam();
  const auto r = parse_policy_config(c.text, c.format, "cfg");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error(), c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedPolicyFile,
    ::testing::Values(
        malformed_case{"json_syntax", config_format::json, "{\n  \"q8_threshold\": 0.8,\n}",
                       "cfg:3: invalid JSON: syntax error while parsing object key - unexpected "
                       "'}'; expected string literal"},
        malformed_case{"toml_syntax", config_format::toml, "q8_threshold = 0.8\nq4_threshold = \n",
                       "cfg:2: invalid TOML: Error while parsing key-value pair: expected value, saw "
                       "'\\n'"},
        malformed_case{"json_wrong_type", config_format::json,
                       "{\n  \"hysteresis\": \"0.05\"\n}",
                       "cfg:2: 'hysteresis' must be a number, got string"},
        malformed_case{"toml_wrong_type", config_format::toml, "min_level = 1\n",
                       "cfg:1: 'min_level' must be a level tag string, got integer"},
        malformed_case{"json_unknown_key", config_format::json,
                       "{\"q8_threshold\": 0.8, \"q9_threshold\": 0.9}",
                       "cfg:1: unknown key 'q9_threshold'"},
        malformed_case{"toml_unknown_key", config_format::toml,
                       "q8_threshold = 0.8\n\n[extra]\nx = 1\n", "cfg:3: unknown key 'extra'"},
        malformed_case{"unknown_level", config_format::json, "{\"max_level\": \"int4\"}",
                       "cfg:1: 'max_level': unknown level 'int4' (expected fp16, q8, fp8, q4 or q3)"},
        malformed_case{"out_of_range", config_format::toml, "ewma_alpha = 1.5\n",
                       "cfg: invalid kv-cache policy configuration: ewma_alpha must be in [0.0, "
                       "1.0]"},
        malformed_case{"nan", config_format::toml, "q8_threshold = nan\n",
                       "cfg: invalid kv-cache policy configuration: q8_threshold must be in [0.0, "
                       "1.0]"},
        malformed_case{"not_an_object", config_format::json, "[1, 2]",
                       "cfg:1: expected a JSON object, got array"},
        malformed_case{"provenance_not_table", config_format::json, "{\"provenance\": 3}",
                       "cfg:1: 'provenance' must be an object/table, got number"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// The sidecar tune writes beside a config, a bench result or a session given as the policy:
// named for what it is, not refused for its first unknown key.
TEST(PolicyFile, AFileOfAnotherKindIsNamed) {
  temp_dir dir;
  const auto sidecar = dir.file("best.json.provenance.json");
  write_text(sidecar, R"({"kvscope_version": "1.0", "tool": "kvscope-cli tune", "load": {"spec": "t.csv"}})");
  const auto tuned = read_policy_config(sidecar);
  ASSERT_FALSE(tuned.has_value());
  EXPECT_EQ(tuned.error(), sidecar + ": the provenance of a tuned policy config, not a policy config; the tuned "
                                     "config is " + dir.file("best.json"));
  const auto bench = dir.file("bench.json");
  write_text(bench, R"({"date": "x", "input_lens": [1], "output_lens": [1], "ttfts": [0.1]})");
  EXPECT_EQ(read_policy_config(bench).error(),
            bench + ": a `vllm bench serve` result, not a policy config; load it as bench:" + bench +
                " (its lengths, sent as the benchmark sent them)");
  // A policy file with a misspelt key is still told about the key.
  const auto typo = dir.file("typo.json");
  write_text(typo, R"({"q8_threshold": 0.8, "q4_treshold": 0.9})");
  EXPECT_NE(read_policy_config(typo).error().find("unknown key 'q4_treshold'"), std::string::npos);
}

TEST(PolicyFile, ReadNamesTheFileAndSniffsFormat) {
  temp_dir dir;
  const auto missing = read_policy_config(dir.file("nope.json"));
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error(), dir.file("nope.json") + ": cannot open file");

  const auto sniffed = dir.file("policy.conf");
  write_text(sniffed, "{\"q4_threshold\": 0.9}");
  const auto r = read_policy_config(sniffed);
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->q4_threshold, 0.9f);
}

}  // namespace
}  // namespace kvscope
