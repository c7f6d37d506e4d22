// Policy files that used to crash, parse wrongly or fail with a raw exception: each is refused
// with a message naming the file and what is wrong, or (BOM) accepted.
#include <gtest/gtest.h>

#include <string>

#include "io/toml_checked.hpp"  // before anything else that reads toml++

#include "io/policy_file.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

using namespace std::string_literals;

std::string error_of(std::string_view text, config_format format, std::string_view source) {
  const auto r = parse_policy_config(text, format, source);
  return r ? "(parsed)" : r.error();
}

// --- Numbers out of range: an error naming the field, never an exception or inf ---------------

TEST(PolicyNumbers, PastADoubleInJson) {
  // nlohmann throws out_of_range (not a parse error) for these.
  EXPECT_EQ(error_of("{\"q8_threshold\": 1e400}", config_format::json, "p.json"),
            "p.json:1: field 'q8_threshold': number out of range");
  EXPECT_EQ(error_of("{\n  \"hysteresis\": -1e400\n}", config_format::json, "p.json"),
            "p.json:2: field 'hysteresis': number out of range");
  const std::string huge_integer = "1" + std::string(400, '0');
  EXPECT_EQ(error_of("{\"ewma_alpha\": " + huge_integer + "}", config_format::json, "p.json"),
            "p.json:1: field 'ewma_alpha': number out of range");
  EXPECT_EQ(error_of("{\"provenance\": {\"metrics\": {\"m\": [1, 1e999]}}}", config_format::json,
                     "p.json"),
            "p.json:1: field 'provenance.metrics.m[1]': number out of range");
}

TEST(PolicyNumbers, PastADoubleOrAnInt64InToml) {
  EXPECT_EQ(error_of("q8_threshold = 1e400\n", config_format::toml, "p.toml"),
            "p.toml:1: field 'q8_threshold': number out of range");
  EXPECT_EQ(error_of("q8_threshold = 0.8\nq4_threshold = 99999999999999999999999\n",
                     config_format::toml, "p.toml"),
            "p.toml:2: field 'q4_threshold': number out of range");
  EXPECT_EQ(error_of("q8_threshold = 0.8\n\n[provenance]\nbudget_bytes = -1e999\n",
                     config_format::toml, "p.toml"),
            "p.toml:4: field 'provenance.budget_bytes': number out of range");
}

TEST(PolicyNumbers, FiniteButPastAFloat) {
  // 3.5e38 is a fine double but no float: it must not quietly become inf.
  EXPECT_EQ(error_of("{\"q8_threshold\": 3.5e38}", config_format::json, "p.json"),
            "p.json:1: field 'q8_threshold': number out of range");
  EXPECT_EQ(error_of("hysteresis = -3.5e38\n", config_format::toml, "p.toml"),
            "p.toml:1: field 'hysteresis': number out of range");
  // inf itself is a value TOML can spell; the range check of the config refuses it.
  EXPECT_EQ(error_of("q8_threshold = inf\n", config_format::toml, "p.toml"),
            "p.toml: invalid kv-cache policy configuration: q8_threshold must be in [0.0, 1.0]");
}

// --- Byte-order marks are skipped; keys given twice are refused --------------------------------

TEST(PolicyText, ByteOrderMarkIsSkipped) {
  const std::string bom = "\xEF\xBB\xBF";
  for (const auto& [format, text] :
       {std::pair{config_format::json, bom + "{\"q8_threshold\": 0.7}\n"},
        std::pair{config_format::toml, bom + "q8_threshold = 0.7\n"}}) {
    const auto r = parse_policy_config(text, format, "p");
    ASSERT_TRUE(r.has_value()) << r.error();
    EXPECT_EQ(r->q8_threshold, 0.7f);
  }
  // With no extension the first character picks the format: the mark must not hide the '{'.
  test::temp_dir dir;
  const auto path = dir.file("policy");
  test::write_text(path, bom + "{\"q4_threshold\": 0.9}\n");
  const auto r = read_policy_config(path);
  ASSERT_TRUE(r.has_value()) << r.error();
  EXPECT_EQ(r->q4_threshold, 0.9f);
}

TEST(PolicyText, DuplicateJsonKeyIsRefusedByName) {
  EXPECT_EQ(error_of("{\"q8_threshold\": 0.9, \"q8_threshold\": 0.8}", config_format::json, "p.json"),
            "p.json: duplicate key 'q8_threshold'");
  EXPECT_EQ(error_of("{\"provenance\": {\"load\": \"a\", \"load\": \"b\"}}", config_format::json,
                     "p.json"),
            "p.json: duplicate key 'provenance.load'");
  // The same key in different objects is fine.
  EXPECT_TRUE(parse_policy_config("{\"provenance\": {\"metrics\": {\"provenance\": 1}}}",
                                  config_format::json, "p.json")
                  .has_value());
}

TEST(PolicyText, DuplicateTomlKeyIsNamedAsWritten) {
  // toml++ 3.3 garbles the name when one of the two is quoted ('"q8q8_threshold" ').
  EXPECT_EQ(error_of("q8_threshold = 0.5\n\"q8_threshold\" = 0.6\n", config_format::toml, "p.toml"),
            "p.toml:2: duplicate key 'q8_threshold'");
  EXPECT_EQ(error_of("'q8_threshold' = 0.5\nq8_threshold = 0.6\n", config_format::toml, "p.toml"),
            "p.toml:2: duplicate key 'q8_threshold'");
  EXPECT_EQ(error_of("[provenance]\nload = 'a'\n\"load\" = 'b'\n", config_format::toml, "p.toml"),
            "p.toml:3: duplicate key 'provenance.load'");
}

TEST(PolicyText, ALongUnknownKeyOrValueIsCutInTheMessage) {
  const std::string key(5000, 'k');
  for (const auto format : {config_format::json, config_format::toml}) {
    const std::string text = format == config_format::json ? "{\"" + key + "\": 1}" : key + " = 1\n";
    const auto message = error_of(text, format, "p");
    EXPECT_LT(message.size(), 200u) << message;
    EXPECT_NE(message.find("...' (5000 bytes)"), std::string::npos) << message;
  }
  const auto level = error_of("{\"max_level\": \"" + key + "\"}", config_format::json, "p");
  EXPECT_NE(level.find("unknown level '" + key.substr(0, 80) + "...' (5000 bytes)"), std::string::npos) << level;
}

// --- TOML: bytes toml++ 3.3.0 mishandles never reach it; its own checks become errors ---------

TEST(PolicyToml, NonAsciiByteIsRefusedWithLineAndColumn) {
  // A non-ASCII letter in a bare key reaches TOML_UNREACHABLE inside toml++ 3.3.0.
  EXPECT_EQ(error_of("q8_threshold = 0.8\n# note\nq\xCE\xA0threshold = 0.95\n",
                     config_format::toml, "p.toml"),
            "p.toml:3:2: byte 0xCE: policy files are ASCII; write non-ASCII as \\uXXXX");
  EXPECT_EQ(error_of("q\xCE\xA0threshold = 0.95\n", config_format::toml, "p.toml"),
            "p.toml:1:2: byte 0xCE: policy files are ASCII; write non-ASCII as \\uXXXX");
}

TEST(PolicyToml, NulBytesAfterBracketAreRefusedBeforeParsing) {
  // `[` then NULs failed an assertion in toml++'s parser::parse_key.
  EXPECT_EQ(error_of("[\0\0"s, config_format::toml, "p.toml"),
            "p.toml:1:2: byte 0x00: policy files are ASCII; write non-ASCII as \\uXXXX");
}

TEST(PolicyToml, BracketBacktickIsAParseErrorNotAnAssertion) {
  // `[` then a backtick is printable ASCII, so it reaches the parser and its failed check, which
  // a release build with toml++'s own macros skipped (or assumed true, with clang) and a debug
  // build aborted on.
  const auto message = error_of("[`", config_format::toml, "p.toml");
  EXPECT_EQ(message.rfind("p.toml: invalid TOML: toml++ internal check failed: ", 0), 0u)
      << message;
}

TEST(PolicyToml, WriterEscapesNonAsciiSoWhatItWritesItReads) {
  policy_provenance p;
  p.load = "/traces/na\xC3\xAFve \xCE\xA0 \xF0\x9F\x98\x80.csv";  // naïve Π 😀
  p.model = "bad \xFF byte";                                       // not UTF-8
  p.metrics = {{"\xCE\xB1lpha", 0.5}};
  const auto preset = *policy_preset("aggressive");
  const auto text = serialize_policy_config(preset, config_format::toml, &p);
  for (const char c : text) {
    ASSERT_TRUE(static_cast<unsigned char>(c) < 0x80) << text;
  }
  EXPECT_NE(text.find(R"(load = "/traces/na\u00EFve \u03A0 \U0001F600.csv")"), std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(model = "bad \uFFFD byte")"), std::string::npos) << text;
  const auto back = parse_policy_config(text, config_format::toml, "mem.toml");
  ASSERT_TRUE(back.has_value()) << back.error() << "\n" << text;
  EXPECT_EQ(*back, preset);
  const auto doc = toml::parse(text);
  EXPECT_EQ(doc["provenance"]["load"].value_or(std::string()), p.load);
  EXPECT_EQ(doc["provenance"]["metrics"]["\xCE\xB1lpha"].value_or(0.0), 0.5);
}

TEST(PolicyJson, WriterReplacesBytesThatAreNotUtf8) {
  // Found by fuzz_policy: a provenance string cut inside a UTF-8 sequence made nlohmann throw.
  policy_provenance p;
  p.load = "/traces/latin1-\xE9t\xE9.csv";
  p.model = "\xBB\xBF";
  const auto text = serialize_policy_config(policy_config{}, config_format::json, &p);
  EXPECT_NE(text.find("\"load\": \"/traces/latin1-\xEF\xBF\xBDt\xEF\xBF\xBD.csv\""),
            std::string::npos)
      << text;
  const auto back = parse_policy_config(text, config_format::json, "mem.json");
  ASSERT_TRUE(back.has_value()) << back.error();
  EXPECT_EQ(*back, policy_config{});
}

TEST(PolicyProvenance, MetricNamedTwiceIsWrittenOnceWithItsLastValue) {
  // Found by fuzz_policy: the TOML writer wrote the key twice, which no TOML reader accepts.
  policy_provenance p;
  p.metrics = {{"peak_usage", 1.5}, {"preemptions", 3}, {"peak_usage", 0.25}};
  for (auto format : {config_format::json, config_format::toml}) {
    const auto text = serialize_policy_config(policy_config{}, format, &p);
    const auto back = parse_policy_config(text, format, "mem");
    ASSERT_TRUE(back.has_value()) << back.error() << "\n" << text;
    const auto first = text.find("peak_usage");
    ASSERT_NE(first, std::string::npos) << text;
    EXPECT_EQ(text.find("peak_usage", first + 1), std::string::npos) << text;
    EXPECT_LT(first, text.find("preemptions")) << text;
    EXPECT_NE(text.find("0.25"), std::string::npos) << text;
  }
}

TEST(PolicyProvenance, NamesDifferingOnlyInBytesThatAreNotUtf8AreOneName) {
  // Both bytes become U+FFFD: written as two keys, the document would not read back.
  policy_provenance p;
  p.metrics = {{"m\xFF", 1.5}, {"m\xFE", 2.5}};
  for (auto format : {config_format::json, config_format::toml}) {
    const auto text = serialize_policy_config(policy_config{}, format, &p);
    const auto back = parse_policy_config(text, format, "mem");
    ASSERT_TRUE(back.has_value()) << back.error() << "\n" << text;
    EXPECT_EQ(text.find("1.5"), std::string::npos) << text;
    EXPECT_NE(text.find("2.5"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace kvscope
