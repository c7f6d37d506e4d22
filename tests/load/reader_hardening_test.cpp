// Trace inputs that editors and scripts produce: a UTF-8 byte-order mark before the first line
// is skipped in every format, and a JSON key given twice is refused by name.
#include <gtest/gtest.h>

#include "load/native_format.hpp"
#include "load/vllm_bench.hpp"
#include "load_test_util.hpp"

namespace kvscope {
namespace {

using test::error_reading;

const std::string bom = "\xEF\xBB\xBF";

TEST(ReaderText, ByteOrderMarkBeforeTheFirstLineIsSkippedInEveryFormat) {
  struct sample {
    load_format format;
    std::string text;
  };
  const std::string mooncake_row = R"({"timestamp": 0, "input_length": 10, "output_length": 2})";
  const sample samples[] = {
      {load_format::azure, "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                           "2023-11-16 18:15:46.6805900,374,44\n"},
      {load_format::vidur, "arrived_at,num_prefill_tokens,num_decode_tokens\n0.5,100,20\n"},
      {load_format::mooncake, mooncake_row + "\n"},
      {load_format::native, native_header_line("t") +
                                R"({"id":0,"arrival_s":0,"prompt_tokens":5,"output_tokens":1})"
                                "\n"},
  };
  for (const auto& s : samples) {
    SCOPED_TRACE(std::string(format_name(s.format)));
    for (auto format : {load_format::automatic, s.format}) {
      EXPECT_EQ(error_reading(bom + s.text, format), "");
      EXPECT_EQ(test::read_text(bom + s.text, format).size(), 1u);
    }
  }
}

TEST(ReaderText, MooncakeRowWithAnyKeyGivenTwiceIsBad) {
  const std::string good = R"({"timestamp": 0, "input_length": 10, "output_length": 2})" "\n";
  // Unknown keys are skipped, but not when given twice: which one was meant?
  EXPECT_EQ(error_reading(good + R"({"timestamp": 5, "input_length": 1, "output_length": 1, )"
                                 R"("extra": 1, "extra": 2})" "\n"),
            "t.csv:2: field 'extra' given twice");
  EXPECT_EQ(error_reading(good + R"({"timestamp": 5, "input_length": 1, "input_length": 2, )"
                                 R"("output_length": 1})" "\n"),
            "t.csv:2: field 'input_length' given twice");
  // Past the few keys a row normally has, the check still holds.
  std::string many = R"({"timestamp": 5, "input_length": 1, "output_length": 1)";
  for (int i = 0; i < 100; ++i) many += ", \"k" + std::to_string(i) + "\": " + std::to_string(i);
  EXPECT_EQ(error_reading(good + many + "}\n"), "");
  EXPECT_EQ(error_reading(good + many + ", \"k42\": 0}\n"), "t.csv:2: field 'k42' given twice");
}

TEST(ReaderText, NativeHeaderWithAKeyGivenTwiceIsRefused) {
  const std::string row = R"({"id":0,"arrival_s":0,"prompt_tokens":5,"output_tokens":1})" "\n";
  EXPECT_EQ(error_reading(R"({"format":"x","format":"kvscope-load","version":1})" "\n" + row,
                          load_format::native),
            "t.csv:1: header field 'format' given twice");
  EXPECT_EQ(error_reading(R"({"format":"kvscope-load","version":1,"source":"a","source":"b"})"
                          "\n" + row),
            "t.csv:1: header field 'source' given twice");
}

// Found by fuzzing: a number past a double threw out of the parser (and ended the program).
TEST(VllmBenchText, ANumberPastADoubleIsAnErrorNamingTheSource) {
  const auto r = parse_vllm_bench(R"({"completed": 1, "duration": 1e400})", "r.json");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().rfind("r.json: invalid JSON: ", 0), 0u) << r.error();
  EXPECT_NE(r.error().find("1e400"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace kvscope
