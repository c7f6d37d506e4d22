// Policy files that used to crash, parse wrongly or fail with a raw exception: each is refused
// with a message naming the file and what is wrong, or (BOM) accepted.
#include <gtest/gtest.h>

#include <string>

#include "io/toml_checked.hpp"  // before anything else that reads toml++

#include "io/policy_file.hpp"

namespace kvscope {
namespace {

using namespace std::string_literals;

std::string error_of(std::string_view text, config_format format, std::string_view source) {
  const auto r = parse_policy_config(text, format, source);
  return r ? "(parsed)" : r.error();
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

}  // namespace
}  // namespace kvscope
