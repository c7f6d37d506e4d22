// Format detection, forced formats, and loads that are no load at all: empty, binary, missing.
#include <gtest/gtest.h>

#include "load/load_error.hpp"
#include "load_test_util.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

using test::error_reading;

TEST(OpenLoad, DetectsEachFormatFromItsFirstLine) {
  const std::pair<const char*, const char*> files[] = {
      {"azure_conv_500.csv", "azure"},     {"azure2024_sample.csv", "azure"},
      {"burstgpt_sample.csv", "burstgpt"}, {"vidur_sample.csv", "vidur"},
      {"mooncake_200.jsonl", "mooncake"},
  };
  for (auto [file, format] : files) {
    auto source = open_load(test::data_path(file), load_format::automatic, {});
    EXPECT_EQ(source->format_name(), format) << file;
  }
}

TEST(OpenLoad, FormatNames) {
  EXPECT_EQ(parse_load_format("burstgpt"), load_format::burstgpt);
  EXPECT_EQ(parse_load_format("auto"), load_format::automatic);
  EXPECT_FALSE(parse_load_format("csv"));
  for (const auto& name : load_format_names()) {
    EXPECT_EQ(format_name(*parse_load_format(name)), name);
  }
}

TEST(OpenLoad, GeneratorSpecs) {
  auto source = open_load("gen:count=3", load_format::automatic, {});
  EXPECT_EQ(source->format_name(), "gen");
  EXPECT_EQ(read_all(*source).size(), 3u);
  try {
    open_load("gen:count=3", load_format::azure, {});
    FAIL();
  } catch (const load_error& e) {
    EXPECT_STREQ(e.what(), "--format azure applies to trace files, not to a generated load ('gen:...')");
  }
  try {
    open_load("gen:count=3,colour=red", load_format::automatic, {});
    FAIL();
  } catch (const load_error& e) {
    EXPECT_EQ(e.kind(), load_error_kind::bad_input);
    EXPECT_TRUE(std::string(e.what()).starts_with("gen spec: unknown key 'colour'"));
  }
}

TEST(OpenLoad, ForcedFormatThatDoesNotMatch) {
  EXPECT_EQ(error_reading("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,1,1\n",
                          load_format::mooncake),
            "t.csv:1: --format mooncake does not match this file, whose first line is in the azure "
            "format");
  EXPECT_EQ(error_reading("{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1}\n",
                          load_format::vidur),
            "t.csv:1: --format vidur does not match this file, whose first line is in the mooncake "
            "format");
  // Unrecognisable first line: the forced reader says what it misses.
  EXPECT_EQ(error_reading("a,b,c\n1,2,3\n", load_format::vidur),
            "t.csv:1: header has no column 'arrived_at' (the vidur format needs arrived_at, "
            "num_prefill_tokens, num_decode_tokens; the header is 'a,b,c')");
}

TEST(OpenLoad, EmptyBinaryAndUnknownFiles) {
  EXPECT_EQ(error_reading(""), "t.csv: empty file");
  EXPECT_EQ(error_reading("\n  \n\n"), "t.csv: empty file");
  EXPECT_EQ(error_reading("", load_format::azure), "t.csv: empty file");
  EXPECT_EQ(error_reading(std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10) + "\n"),
            "t.csv:1: binary data, not a text trace (first bytes '\\x7fELF\\x02\\x01\\x01\\x00\\x00\\x00')");
  EXPECT_EQ(error_reading("hello,world\n1,2\n"),
            "t.csv:1: unknown format: the first line 'hello,world' is not a header of a known trace "
            "(azure: TIMESTAMP,ContextTokens,GeneratedTokens; burstgpt: Timestamp,...,Request "
            "tokens,Response tokens; vidur: arrived_at,num_prefill_tokens,num_decode_tokens; "
            "mooncake or native JSON lines); use --format");
  EXPECT_EQ(error_reading("{\"a\": 1}\n"),
            "t.csv:1: JSON lines of an unknown kind (neither a kvscope-load header nor a Mooncake "
            "row with timestamp, input_length, output_length); use --format");
  EXPECT_EQ(error_reading("{\"a\": \n"),
            "t.csv:1: the first line starts like JSON but is not a valid JSON object");
}

TEST(OpenLoad, BareCrLineEndingsAreNamedNotCalledBinary) {
  // The line reader splits at LF only: the whole file is one line holding CRs.
  const std::string message = "t.csv:1: lines end in a bare CR (classic Mac line endings), which no trace "
                              "format uses; convert them to LF, e.g. tr '\\r' '\\n'";
  EXPECT_EQ(error_reading("arrived_at,num_prefill_tokens,num_decode_tokens\r0,10,2\r1,10,2\r"), message);
  EXPECT_EQ(error_reading("{\"format\":\"kvscope-load\",\"version\":1}\r{\"id\":0}\r"), message);
  // CRs among other control bytes are still binary data.
  EXPECT_EQ(error_reading(std::string("a\rb\0c\n", 6)),
            "t.csv:1: binary data, not a text trace (first bytes 'a\\x0db\\x00c')");
}

TEST(OpenLoad, MissingFileAndDirectory) {
  test::temp_dir dir;
  try {
    open_load(dir.file("nope.csv"), load_format::automatic, {});
    FAIL();
  } catch (const load_error& e) {
    EXPECT_EQ(e.kind(), load_error_kind::bad_input);
    EXPECT_EQ(std::string(e.what()), dir.file("nope.csv") + ": cannot open: No such file or directory");
  }
  try {
    open_load(dir.path().string(), load_format::automatic, {});
    FAIL();
  } catch (const load_error& e) {
    EXPECT_EQ(std::string(e.what()), dir.path().string() + ": is a directory, not a load file");
  }
}

TEST(OpenLoad, ProgressAndBytesOfAFile) {
  auto source = open_load(test::data_path("vidur_sample.csv"), load_format::automatic, {});
  EXPECT_LT(source->progress(), 0.5);  // only the header is read so far
  const auto n = read_all(*source).size();
  EXPECT_EQ(n, 5u);
  EXPECT_EQ(source->progress(), 1.0);
  EXPECT_EQ(source->bytes_read(), std::filesystem::file_size(test::data_path("vidur_sample.csv")));
}

}  // namespace
}  // namespace kvscope
