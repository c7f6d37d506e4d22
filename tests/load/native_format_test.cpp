// The native JSONL format: record any load and read it back identically; header and row checks.
#include <gtest/gtest.h>

#include "load/generator.hpp"
#include "load/native_format.hpp"
#include "load_test_util.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

using test::error_reading;
using test::read_text;

// Records `source` to a file, reads it back, and returns both loads and the file text.
struct round_trip {
  std::vector<request> written, read;
  std::string text;
};

round_trip record_and_replay(request_source& source) {
  test::temp_dir dir;
  const std::string path = dir.file("load.jsonl");
  // Record from a copy so the written requests are known.
  round_trip rt;
  rt.written = read_all(source);
  std::string text = native_header_line("test");
  for (const auto& r : rt.written) append_native_line(text, r);
  test::write_text(path, text);
  rt.text = text;
  auto replay = open_load(path, load_format::automatic, {});
  EXPECT_EQ(replay->format_name(), "native");
  rt.read = read_all(*replay);
  return rt;
}

TEST(NativeFormat, GeneratedLoadReplaysIdentically) {
  auto spec = parse_generator_spec(
      "gen:rate=40,burstiness=0.3,prompt=lognormal:700:1.2,output=zipf:1.1:900,count=3000,"
      "prefix_groups=9,prefix_len=400,seed=5");
  ASSERT_TRUE(spec);
  generator_source source(*spec);
  const auto rt = record_and_replay(source);
  ASSERT_EQ(rt.written.size(), 3000u);
  EXPECT_EQ(rt.written, rt.read);  // exact doubles, hashes, ids
}

TEST(NativeFormat, EveryRecordedFormatReplaysIdentically) {
  for (const char* name : {"azure_conv_500.csv", "azure2024_sample.csv", "burstgpt_sample.csv",
                           "vidur_sample.csv", "mooncake_200.jsonl"}) {
    auto source = open_load(test::data_path(name), load_format::automatic, {});
    const auto rt = record_and_replay(*source);
    EXPECT_FALSE(rt.written.empty()) << name;
    EXPECT_EQ(rt.written, rt.read) << name;
  }
}

TEST(NativeFormat, RecordNativeStreamsToTheTargetAndRecordingTwiceIsByteIdentical) {
  test::temp_dir dir;
  auto first = open_load(test::data_path("mooncake_200.jsonl"), load_format::automatic, {});
  EXPECT_EQ(record_native(*first, dir.file("a.jsonl"), "src"), 200u);
  auto again = open_load(dir.file("a.jsonl"), load_format::automatic, {});
  EXPECT_EQ(record_native(*again, dir.file("b.jsonl"), "src"), 200u);
  EXPECT_EQ(read_text(dir.file("a.jsonl")), read_text(dir.file("b.jsonl")));
  // Only the two targets: no temp file left behind.
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 2);
}

TEST(NativeFormat, LabelsWithQuotesControlsAndUnicodeSurvive) {
  request r;
  r.id = 18446744073709551615ULL;
  r.arrival_s = 0;
  r.prompt_tokens = static_cast<std::uint32_t>(max_request_tokens);  // the most a request may hold
  r.output_tokens = 0;
  r.prefix_hashes = {0, 18446744073709551615ULL, 9007199254740993ULL};
  r.prefix_block_size = 16;
  r.label = "say \"hi\"\\ \t\n\x01 caf\xc3\xa9 \xe2\x9c\x93";
  request s = r;
  s.id = 7;
  s.arrival_s = 0.1 + 0.2;  // 0.30000000000000004: shortest round-trip form keeps every bit
  s.prefix_hashes.clear();
  s.prefix_block_size = 0;
  s.label.clear();
  std::string text = native_header_line("with \"quotes\"");
  append_native_line(text, r);
  append_native_line(text, s);
  auto source = open_load_text("n.jsonl", text, load_format::automatic, {});
  const auto load = read_all(*source);
  ASSERT_EQ(load.size(), 2u);
  EXPECT_EQ(load[0], r);
  EXPECT_EQ(load[1], s);
  EXPECT_EQ(static_cast<native_reader&>(*source).source_description(), "with \"quotes\"");
}

TEST(NativeFormat, WrittenLinesLookAsDocumented) {
  request r;
  r.id = 1;
  r.arrival_s = 0.25;
  r.prompt_tokens = 96;
  r.output_tokens = 20;
  r.prefix_hashes = {123, 456};
  r.prefix_block_size = 16;
  r.label = "ChatGPT/Conversation log";
  std::string text;
  append_native_line(text, r);
  EXPECT_EQ(text,
            "{\"id\":1,\"arrival_s\":0.25,\"prompt_tokens\":96,\"output_tokens\":20,"
            "\"prefix_block_size\":16,\"prefix_hashes\":[123,456],\"label\":\"ChatGPT/Conversation "
            "log\"}\n");
  EXPECT_EQ(native_header_line("gen:count=1"),
            "{\"format\":\"kvscope-load\",\"version\":1,\"source\":\"gen:count=1\"}\n");
}

const std::string header = "{\"format\":\"kvscope-load\",\"version\":1}\n";

TEST(NativeFormat, HeaderProblems) {
  EXPECT_EQ(error_reading("{\"format\":\"kvscope-load\",\"version\":2}\n", load_format::native),
            "t.csv:1: kvscope-load version 2 is not supported (this build reads version 1)");
  EXPECT_EQ(error_reading("{\"format\":\"other\",\"version\":1}\n", load_format::native),
            "t.csv:1: not a kvscope load: the first line must be the header "
            "{\"format\":\"kvscope-load\",\"version\":1,...}");
  EXPECT_EQ(error_reading("{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1}\n",
                          load_format::native),
            "t.csv:1: not a kvscope load: the first line must be the header "
            "{\"format\":\"kvscope-load\",\"version\":1,...}");
  EXPECT_EQ(error_reading(header, load_format::automatic), "t.csv: no requests: no data rows after line 1");
}

TEST(NativeFormat, BadRows) {
  const auto fmt = load_format::native;
  EXPECT_EQ(error_reading(header + "{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":1}\n", fmt),
            "t.csv:2: missing field 'output_tokens'");
  EXPECT_EQ(error_reading(header + "{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1,"
                                   "\"colour\":1}\n", fmt),
            "t.csv:2: unknown field 'colour'");
  EXPECT_EQ(error_reading(header + "{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1,"
                                   "\"prefix_hashes\":[1]}\n", fmt),
            "t.csv:2: fields 'prefix_hashes' and 'prefix_block_size' go together (non-empty hashes, "
            "block size >= 1)");
  EXPECT_EQ(error_reading(header + "{\"id\":-1,\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1}\n", fmt),
            "t.csv:2: field 'id' is not an unsigned 64-bit integer");
  EXPECT_EQ(error_reading(header + "{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":1,\"output_tok", fmt),
            "t.csv:2: truncated JSON: a string is not closed");
}

TEST(NativeFormat, TextAfterAWholeObjectIsNotCalledTruncated) {
  const auto fmt = load_format::native;
  const std::string row = "{\"id\":0,\"arrival_s\":0,\"prompt_tokens\":1,\"output_tokens\":1}";
  EXPECT_EQ(error_reading(header + row + " trailing\n", fmt), "t.csv:2: unexpected content after the JSON object");
  EXPECT_EQ(error_reading(header + row + ",{}\n", fmt), "t.csv:2: unexpected content after the JSON object");
  // Braces inside strings do not close the object; a line that never closes is still truncated.
  EXPECT_EQ(error_reading(header + "{\"label\":\"}\" x\n", fmt), "t.csv:2: truncated JSON: an object or array is not closed");
}

}  // namespace
}  // namespace kvscope
