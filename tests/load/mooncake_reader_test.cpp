// Mooncake JSON lines: the real 200-line slice, hash_ids as 512-token blocks, and bad rows.
#include <gtest/gtest.h>

#include "load_test_util.hpp"

namespace kvscope {
namespace {

using test::error_reading;

TEST(MooncakeReader, RealSliceOf200Lines) {
  auto source = open_load(test::data_path("mooncake_200.jsonl"), load_format::automatic, {});
  EXPECT_EQ(source->format_name(), "mooncake");
  const auto load = read_all(*source);
  ASSERT_EQ(load.size(), 200u);
  std::uint64_t prompt = 0, output = 0, hashes = 0;
  for (const auto& r : load) {
    prompt += r.prompt_tokens;
    output += r.output_tokens;
    hashes += r.prefix_hashes.size();
    EXPECT_EQ(r.prefix_block_size, 512u);
    EXPECT_EQ(r.prefix_hashes.size(), (r.prompt_tokens + 511) / 512);
  }
  EXPECT_EQ(prompt, 2663480u);
  EXPECT_EQ(output, 38364u);
  EXPECT_EQ(hashes, 5330u);
  EXPECT_EQ(load.front().arrival_s, 0.0);
  EXPECT_EQ(load.front().prompt_tokens, 40160u);
  EXPECT_EQ(load.front().prefix_hashes.front(), 0u);
  EXPECT_EQ(load.front().prefix_hashes.back(), 78u);
  EXPECT_DOUBLE_EQ(load.back().arrival_s, 58.501);
  EXPECT_EQ(load.back().prompt_tokens, 37625u);
  ASSERT_EQ(load.back().prefix_hashes.size(), 74u);  // 73 full blocks and a partial one
  EXPECT_EQ(load.back().prefix_hashes.front(), 4933u);
}

TEST(MooncakeReader, OtherFieldsAreSkippedAndHashIdsOptional) {
  const auto load = test::read_text(
      "{\"timestamp\": 1000, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [7, 8], "
      "\"extra\": {\"a\": [1, 2]}}\n"
      "{\"output_length\": 5, \"input_length\": 10, \"timestamp\": 1500.5}\n",
      load_format::mooncake);
  ASSERT_EQ(load.size(), 2u);
  EXPECT_EQ(load[0].prefix_hashes, (std::vector<std::uint64_t>{7, 8}));
  EXPECT_DOUBLE_EQ(load[1].arrival_s, 0.5005);
  EXPECT_TRUE(load[1].prefix_hashes.empty());
  EXPECT_EQ(load[1].prefix_block_size, 0u);
}

const std::string good =
    "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2, \"hash_ids\": [1]}\n";

TEST(MooncakeReader, BadRowsNameLineAndField) {
  const auto fmt = load_format::mooncake;
  EXPECT_EQ(error_reading(good + "{\"timestamp\": 5, \"input_length\": 10, \"outp", fmt),
            "t.csv:2: truncated JSON: a string is not closed");
  EXPECT_EQ(error_reading(good + "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 1", fmt),
            "t.csv:2: truncated JSON: an object or array is not closed");
  EXPECT_EQ(error_reading(good + "{\"timestamp\": 5, \"input_length\": 10}\n", fmt),
            "t.csv:2: missing field 'output_length'");
  EXPECT_EQ(error_reading(good + "{\"timestamp\": 5, \"input_length\": -1, \"output_length\": 1}\n", fmt),
            "t.csv:2: field 'input_length' is negative");
  EXPECT_EQ(error_reading(good + "{\"timestamp\": \"5\", \"input_length\": 1, \"output_length\": 1}\n", fmt),
            "t.csv:2: field 'timestamp' is not a finite number (milliseconds expected)");
  EXPECT_EQ(error_reading(good + "{\"timestamp\": 5, \"input_length\": \"x\", \"output_length\": 1}\n", fmt),
            "t.csv:2: field 'input_length' is not a number");
  EXPECT_EQ(error_reading(good + "{\"timestamp\": 5, \"input_length\": 1, \"output_length\": 1.5}\n", fmt),
            "t.csv:2: field 'output_length' is not a whole number");
  EXPECT_EQ(error_reading(good + "{\"timestamp\": 5, \"input_length\": 1000, \"output_length\": 1, "
                                 "\"hash_ids\": [1]}\n", fmt),
            "t.csv:2: field 'hash_ids' has 1 ids but input_length 1000 needs 2 (one per 512 tokens, "
            "the last partial)");
  EXPECT_EQ(error_reading(good + "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 1, "
                                 "\"hash_ids\": [-1]}\n", fmt),
            "t.csv:2: field 'hash_ids' element 0 is not an unsigned 64-bit integer");
  EXPECT_EQ(error_reading(good + "{\"timestamp\": 5, \"timestamp\": 6, \"input_length\": 1, "
                                 "\"output_length\": 1}\n", fmt),
            "t.csv:2: field 'timestamp' given twice");
  EXPECT_EQ(error_reading(good + "[1, 2]\n", fmt), "t.csv:2: not a JSON object (a Mooncake row is {...})");
  EXPECT_EQ(error_reading(good + "{\"timestamp\": 5, \"input_length\": 1, \"output_length\": 1}}\n", fmt),
            "t.csv:2: unexpected content after the JSON object");
  EXPECT_EQ(error_reading(good + "{\"timestamp\": 5, \"input_length\": 1, \"output_length\": 1} x\n", fmt),
            "t.csv:2: unexpected content after the JSON object");
  EXPECT_EQ(error_reading(good + "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2}\n"
                                 "{\"timestamp\": -100, \"input_length\": 10, \"output_length\": 2}\n", fmt),
            "t.csv:3: time goes back 0.1 s (to -0.1 s after the first request, previous row at 0 s; "
            "tolerance 0.001 s)");
}

}  // namespace
}  // namespace kvscope
