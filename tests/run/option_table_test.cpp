#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "io/session_file.hpp"
#include "run/option_table.hpp"

namespace kvscope {
namespace {

TEST(OptionTable, NamesAreUniqueAndEveryEntryIsComplete) {
  std::set<std::string_view> flags, keys;
  for (const auto& spec : option_table()) {
    EXPECT_TRUE(flags.insert(spec.flag).second) << spec.flag;
    if (!spec.key.empty()) {
      EXPECT_TRUE(keys.insert(spec.key).second) << spec.key;
    }
    EXPECT_FALSE(spec.help.empty()) << spec.flag;
    EXPECT_TRUE(spec.get && spec.set) << spec.flag;
    if (spec.kind == option_kind::choice) {
      EXPECT_NE(spec.choices, nullptr) << spec.flag;
    }
    if (spec.kind != option_kind::choice && spec.kind != option_kind::text) {
      EXPECT_EQ(spec.choices, nullptr) << spec.flag;
    }
    EXPECT_EQ((spec.places & in_session) != 0, !spec.key.empty()) << spec.flag;
  }
}

// Every default, formatted as one would type it, parses back to the same value: the help's
// defaults are what the engine uses.
TEST(OptionTable, DefaultsFormatAndParseBackExactly) {
  const engine_options defaults;
  for (const auto& spec : option_table()) {
    const auto value = spec.get(defaults);
    EXPECT_FALSE(check_option_value(spec, value).has_value()) << spec.flag;
    if (spec.kind == option_kind::flag) continue;
    const auto text = format_option_value(spec, value);
    const auto parsed = parse_option_text(spec, text);
    ASSERT_TRUE(parsed.has_value()) << spec.flag << ": " << parsed.error();
    engine_options a, b;
    spec.set(a, value);
    spec.set(b, *parsed);
    EXPECT_EQ(format_option_value(spec, spec.get(a)), format_option_value(spec, spec.get(b))) << spec.flag;
  }
}

TEST(OptionTable, OutOfRangeAndMalformedValuesNameTheFlag) {
  const auto refused = [](std::string_view name, std::string_view text) {
    engine_options o;
    const auto r = set_option(o, name, text);
    return r ? std::string() : r.error();
  };
  EXPECT_EQ(refused("block-size", "0"), "--block-size: expected a whole number in [1, 1024], got 0");
  EXPECT_EQ(refused("block-size", "-3"), "--block-size: expected a whole number in [1, 1024], got '-3'");
  EXPECT_EQ(refused("watermark", "nan"), "--watermark: expected a number in [0, 0.99], got 'nan'");
  EXPECT_EQ(refused("watermark", "inf"), "--watermark: expected a number in [0, 0.99], got 'inf'");
  EXPECT_EQ(refused("q8-threshold", "1.5"), "--q8-threshold: expected a number in [0, 1], got '1.5'");
  EXPECT_EQ(refused("model", "huge").rfind("--model: unknown model 'huge' (built-in: tiny,", 0), 0u);
  EXPECT_EQ(refused("budget", "0"), "--budget: must be more than 0 bytes (or auto)");
  EXPECT_EQ(refused("slo", "ttft=-1"), "--slo: 'ttft=-1': expected a positive number of seconds");
  EXPECT_EQ(refused("gpu", "h900").rfind("--gpu: ", 0), 0u);
  EXPECT_EQ(refused("budget", "12 parsecs"), "--budget: not a size: '12 parsecs' (e.g. 16GiB, 512MiB, 1073741824)");
  EXPECT_EQ(refused("warp-factor", "9"), "unknown option 'warp-factor'");
  EXPECT_EQ(refused("max-num-seqs", ""), "--max-num-seqs: expected a whole number in [1, 1048576], got ''");
}

TEST(OptionTable, SetsByFlagOrSessionKeyInEngineUnits) {
  engine_options o;
  ASSERT_TRUE(set_option(o, "step-base-ms", "12.5").has_value());
  EXPECT_DOUBLE_EQ(o.timing.base_s, 12.5e-3);
  ASSERT_TRUE(set_option(o, "budget_bytes", "512MiB").has_value());
  EXPECT_EQ(o.budget_bytes, 512ull << 20);
  ASSERT_TRUE(set_option(o, "q4-threshold", "0.9").has_value());
  EXPECT_EQ(o.policy.q4_threshold, 0.9f);
  ASSERT_TRUE(set_option(o, "max-level", "q8").has_value());
  EXPECT_EQ(o.policy.max_level, precision::q8);
  ASSERT_TRUE(set_option(o, "payload", "data").has_value());
  EXPECT_EQ(o.payload, payload_mode::data);
}

// What the GUI prints as its headless equivalent: the options away from their defaults, typed as
// the CLI takes them, and each of them sets back the value it came from.
TEST(OptionTable, DifferingFlagsAreTheChangedOptionsTypedAsTheCliTakesThem) {
  EXPECT_EQ(differing_flags(engine_options{}), std::vector<std::string>{});
  engine_options o;
  o.gpu = "h100";
  o.policy.family = policy_family::age;
  o.policy.q4_threshold = 0.9f;
  o.timing.base_s = 12.5e-3;
  const auto flags = differing_flags(o);
  EXPECT_NE(std::find(flags.begin(), flags.end(), "--gpu h100"), flags.end());
  EXPECT_NE(std::find(flags.begin(), flags.end(), "--family age"), flags.end());
  EXPECT_NE(std::find(flags.begin(), flags.end(), "--q4-threshold 0.9"), flags.end());
  EXPECT_NE(std::find(flags.begin(), flags.end(), "--step-base-ms 12.5"), flags.end());
  EXPECT_EQ(flags.size(), 4u);
  engine_options back;
  for (const std::string& f : flags) {
    const auto space = f.find(' ');
    ASSERT_TRUE(set_option(back, f.substr(2, space - 2), f.substr(space + 1)).has_value()) << f;
  }
  EXPECT_EQ(differing_flags(back), flags);
}

// The session file is written from the table: every in_session option is a key of "options",
// in table order, and a description with every option changed reads back unchanged.
TEST(OptionTable, SessionFileHoldsEveryOptionAndRoundTrips) {
  run_description run;
  run.load_spec = "gen:rate=1,count=5";
  auto& o = run.options;
  o.model = "tiny";
  o.budget_bytes = 3ull << 20;
  o.block_size = 32;
  o.tail_tokens = 64;
  o.migration_batch = 7;
  o.max_tokens = 0;
  o.payload = payload_mode::data;
  o.prefix_caching = false;
  o.scheduler = {17, 1000, 0.05};
  o.scheduler.chunked_prefill = false;  // a whole prompt of max_model_len fits a step
  o.max_model_len = 1000;
  o.timing = {0.02, 1e-5, 3e-5};
  o.seed = 99;
  o.quality_every = 3;
  o.quality_blocks = 9;
  o.q4_storage = q4_format::q4o;
  o.q4o_channels = 2;
  const auto text = session_to_json(run);
  std::size_t last = 0;
  for (const auto& spec : option_table()) {
    if (!(spec.places & in_session)) continue;
    const auto at = text.find("\"" + std::string(spec.key) + "\"");
    ASSERT_NE(at, std::string::npos) << spec.key;
    EXPECT_GT(at, last) << spec.key << " out of table order";
    last = at;
  }
  const auto back = session_from_json(text, "mem");
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(session_to_json(*back), text);
  for (const auto& spec : option_table()) {
    EXPECT_EQ(format_option_value(spec, spec.get(back->options)), format_option_value(spec, spec.get(o)))
        << spec.flag;
  }
}

// The q4 format and its channels are recorded only when set: a session of a run that leaves them
// alone is what it was before they existed, and reads back to the defaults.
TEST(OptionTable, SessionRecordsTheQ4FormatOnlyWhenSet) {
  run_description run;
  run.load_spec = "gen:rate=1,count=5";
  const auto plain = session_to_json(run);
  EXPECT_EQ(plain.find("q4_format"), std::string::npos);
  EXPECT_EQ(plain.find("q4o_channels"), std::string::npos);
  run.options.q4o_channels = 8;  // recorded on its own, though only q4o reads it
  const auto channels = session_to_json(run);
  EXPECT_EQ(channels.find("q4_format"), std::string::npos);
  EXPECT_NE(channels.find("\"q4o_channels\": 8"), std::string::npos);
  run.options.q4_storage = q4_format::q4o;
  const auto q4o = session_to_json(run);
  EXPECT_NE(q4o.find("\"q4_format\": \"q4o\""), std::string::npos);
  const auto back = session_from_json(q4o, "s.json");
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(back->options.q4_storage, q4_format::q4o);
  EXPECT_EQ(back->options.q4o_channels, 8u);
  EXPECT_EQ(session_from_json(plain, "s.json")->options.q4_storage, q4_format::q4);
  auto bad = q4o;
  bad.replace(bad.find("\"q4o\""), 5, "\"q5\"");
  EXPECT_EQ(session_from_json(bad, "s.json").error(),
            "s.json: field 'options.q4_format': expected one of q4, q4o, got 'q5'");
}

TEST(OptionTable, SessionValuesOutOfRangeAreRefusedNamingTheField) {
  run_description run;
  run.load_spec = "gen:rate=1,count=5";
  auto text = session_to_json(run);
  text.replace(text.find("\"block_size\": 16"), 16, "\"block_size\": 0");
  const auto back = session_from_json(text, "s.json");
  ASSERT_FALSE(back.has_value());
  EXPECT_EQ(back.error(), "s.json: field 'options.block_size': expected a whole number in [1, 1024], got 0");
}

TEST(OptionTable, SessionSecondsOutOfRangeAreReportedInSeconds) {
  // The session holds step_base_s in seconds: the message must not switch to the flag's ms.
  run_description run;
  run.load_spec = "gen:rate=1,count=5";
  auto text = session_to_json(run);
  const auto at = text.find("\"step_base_s\": ");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, text.find(',', at) - at, "\"step_base_s\": -1");
  const auto back = session_from_json(text, "s.json");
  ASSERT_FALSE(back.has_value());
  EXPECT_EQ(back.error(), "s.json: field 'options.step_base_s': expected a number in [0, 1000] s, got -1 s");
  // Typed on the command line, the same option still speaks milliseconds.
  EXPECT_EQ(parse_option_text(*find_option("step-base-ms"), "-1").error(),
            "--step-base-ms: expected a number in [0, 1000000], got '-1'");
}

}  // namespace
}  // namespace kvscope
