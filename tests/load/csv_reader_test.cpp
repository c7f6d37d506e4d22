// The CSV traces: Azure 2023 (real slice) and 2024, BurstGPT, Vidur; counts, sums, first and last
// times, and every kind of bad row.
#include <gtest/gtest.h>

#include <numeric>

#include "load/csv.hpp"
#include "load_test_util.hpp"

namespace kvscope {
namespace {

using test::error_reading;
using test::read_data_file;
using test::read_text;

std::uint64_t prompt_sum(const std::vector<request>& load) {
  std::uint64_t n = 0;
  for (const auto& r : load) n += r.prompt_tokens;
  return n;
}
std::uint64_t output_sum(const std::vector<request>& load) {
  std::uint64_t n = 0;
  for (const auto& r : load) n += r.output_tokens;
  return n;
}

TEST(AzureReader, RealSliceOf500Rows) {
  const auto load = read_data_file("azure_conv_500.csv");
  ASSERT_EQ(load.size(), 500u);
  EXPECT_EQ(prompt_sum(load), 467684u);
  EXPECT_EQ(output_sum(load), 132536u);
  EXPECT_EQ(load.front().arrival_s, 0.0);
  EXPECT_EQ(load.front().prompt_tokens, 374u);
  EXPECT_EQ(load.front().output_tokens, 44u);
  EXPECT_NEAR(load[1].arrival_s, 4.314579, 1e-9);
  EXPECT_NEAR(load.back().arrival_s, 129.012474, 1e-9);
  EXPECT_EQ(load.back().prompt_tokens, 1033u);
  EXPECT_EQ(load.back().output_tokens, 420u);
  EXPECT_EQ(load.back().id, 499u);
  EXPECT_TRUE(load.back().label.empty());
  EXPECT_TRUE(load.back().prefix_hashes.empty());
}

TEST(AzureReader, Sample2024WithZonesAcrossMidnight) {
  const auto load = read_data_file("azure2024_sample.csv");
  ASSERT_EQ(load.size(), 7u);
  EXPECT_EQ(prompt_sum(load), 23195u);
  EXPECT_EQ(output_sum(load), 335u);
  const double expected[] = {0, 0.003841, 1.5, 59.999999, 60, 86399.25, 86402.75};
  for (std::size_t i = 0; i < 7; ++i) EXPECT_NEAR(load[i].arrival_s, expected[i], 1e-9) << i;
}

TEST(BurstGptReader, FailedRequestsAreSkippedAndCounted) {
  auto source = open_load(test::data_path("burstgpt_sample.csv"), load_format::automatic, {});
  EXPECT_EQ(source->format_name(), "burstgpt");
  const auto load = read_all(*source);
  ASSERT_EQ(load.size(), 4u);
  EXPECT_EQ(source->counters().rows, 6u);
  EXPECT_EQ(source->counters().failed_requests, 2u);
  EXPECT_EQ(source->counters().bad_rows, 0u);
  EXPECT_EQ(prompt_sum(load), 2759u);
  EXPECT_EQ(output_sum(load), 703u);
  EXPECT_EQ(load.front().arrival_s, 0.0);
  EXPECT_EQ(load.back().arrival_s, 160.0);
  EXPECT_EQ(load[1].label, "GPT-4/API log");
  EXPECT_EQ(load[2].label, "ChatGPT/Conversation log");
}

TEST(BurstGptReader, ColumnsAreFoundByHeaderName) {
  // A newer layout: extra columns, another order, a quoted model name with a comma.
  const auto load = read_text(
      "Session ID,Log Type,Response tokens,Timestamp,Elapsed time,Request tokens,Total tokens,Model\n"
      "a1,Conversation log,18,5,0.2,472,490,ChatGPT\n"
      "a2,API log,173,118,0.9,417,590,\"GPT-4, turbo\"\n",
      load_format::automatic);
  ASSERT_EQ(load.size(), 2u);
  EXPECT_EQ(load[1].prompt_tokens, 417u);
  EXPECT_EQ(load[1].output_tokens, 173u);
  EXPECT_EQ(load[1].arrival_s, 113.0);
  EXPECT_EQ(load[1].label, "GPT-4, turbo/API log");
}

TEST(VidurReader, SampleRelativeToFirstArrival) {
  const auto load = read_data_file("vidur_sample.csv");
  ASSERT_EQ(load.size(), 5u);
  EXPECT_EQ(prompt_sum(load), 7268u);
  EXPECT_EQ(output_sum(load), 880u);
  EXPECT_EQ(load.front().arrival_s, 0.0);
  EXPECT_NEAR(load[1].arrival_s, 0.2484, 1e-12);
  EXPECT_NEAR(load.back().arrival_s, 2.5, 1e-12);
}

TEST(CsvReader, WholeNumbersWrittenAsFloatsAndCrlfAndBlankLines) {
  const auto load = read_text(
      "arrived_at,num_prefill_tokens,num_decode_tokens\r\n0,12.0,3\r\n\r\n1.5,1e3,4\r\n",
      load_format::vidur);
  ASSERT_EQ(load.size(), 2u);
  EXPECT_EQ(load[0].prompt_tokens, 12u);
  EXPECT_EQ(load[1].prompt_tokens, 1000u);
}

const std::string azure_header = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
const std::string good_row = "2023-11-16 18:15:46.6805900,374,44\n";

TEST(CsvReader, BadRowsNameFileLineAndColumn) {
  EXPECT_EQ(error_reading(azure_header + good_row + "2023-11-16 18:15:47.0,abc,44\n"),
            "t.csv:3: column 'ContextTokens': 'abc' is not a number");
  EXPECT_EQ(error_reading(azure_header + "2023-11-16 18:15:47.0,374,-5\n"),
            "t.csv:2: column 'GeneratedTokens': '-5' is negative");
  EXPECT_EQ(error_reading(azure_header + "2023-11-16 18:15:47.0,,5\n"),
            "t.csv:2: column 'ContextTokens': is empty");
  EXPECT_EQ(error_reading(azure_header + "2023-11-16 18:15:47.0,1.5,5\n"),
            "t.csv:2: column 'ContextTokens': '1.5' is not a whole number");
  EXPECT_EQ(error_reading(azure_header + "2023-11-16 18:15:47.0,99999999999,5\n"),
            "t.csv:2: column 'ContextTokens': '99999999999' is too large");
  EXPECT_EQ(error_reading(azure_header + "2023-11-16 18:15:47.0,374\n"),
            "t.csv:2: row has 2 fields, the header has 3 (column 'GeneratedTokens' is missing)");
  EXPECT_EQ(error_reading(azure_header + "2023-11-16 18:15:47.0,374,4,9\n"),
            "t.csv:2: row has 4 fields, the header has 3");
  EXPECT_EQ(error_reading(azure_header + "2023-11-31 18:15:47.0,374,4\n"),
            "t.csv:2: column 'TIMESTAMP': cannot parse timestamp '2023-11-31 18:15:47.0' (expected "
            "YYYY-MM-DD HH:MM:SS[.fraction][+HH:MM])");
  EXPECT_EQ(error_reading("Timestamp,Request tokens,Response tokens\n5,1,1\nsoon,1,1\n"),
            "t.csv:3: column 'Timestamp': 'soon' is not a number (seconds expected)");
  EXPECT_EQ(error_reading("Timestamp,Request tokens,Response tokens\n5,1,1\ninf,1,1\n"),
            "t.csv:3: column 'Timestamp': 'inf' is not a finite number (seconds expected)");
  EXPECT_EQ(error_reading("Timestamp,Model,Request tokens,Response tokens\n5,\"GPT,1,1\n"),
            "t.csv:2: a quote is left open, or text follows a closing quote");
  EXPECT_EQ(error_reading("Timestamp,Model,Request tokens,Response tokens\n5,\xff\xfe,1,1\n"),
            "t.csv:2: column 'Model': not valid UTF-8 text");
}

TEST(CsvReader, TimeMayGoBackOnlyWithinTheTolerance) {
  read_options options;
  auto source = open_load_text("t.csv",
                               azure_header + "2023-11-16 18:15:46.5,1,1\n"
                                              "2023-11-16 18:15:46.4995,2,2\n"
                                              "2023-11-16 18:15:47,3,3\n",
                               load_format::automatic, options);
  const auto load = read_all(*source);
  ASSERT_EQ(load.size(), 3u);
  EXPECT_EQ(load[1].arrival_s, 0.0);  // 0.5 ms back: moved up to the row before, and counted
  EXPECT_EQ(source->counters().clamped_times, 1u);
  EXPECT_EQ(error_reading(azure_header + "2023-11-16 18:15:46.5,1,1\n2023-11-16 18:15:45.5,2,2\n"),
            "t.csv:3: time goes back 1 s (to -1 s after the first request, previous row at 0 s; "
            "tolerance 0.001 s)");
}

TEST(CsvReader, SkipBadRowsCountsThemAndKeepsTheirMessages) {
  read_options options;
  options.skip_bad_rows = true;
  auto source = open_load_text("t.csv",
                               azure_header + good_row + "x,1,1\n" + good_row + "2023-11-16 18:15:50,1\n",
                               load_format::automatic, options);
  const auto load = read_all(*source);
  EXPECT_EQ(load.size(), 2u);
  EXPECT_EQ(source->counters().bad_rows, 2u);
  EXPECT_EQ(source->counters().rows, 4u);
  ASSERT_EQ(source->counters().bad_row_messages.size(), 2u);
  EXPECT_EQ(source->counters().bad_row_messages[0],
            "t.csv:3: column 'TIMESTAMP': cannot parse timestamp 'x' (expected YYYY-MM-DD "
            "HH:MM:SS[.fraction][+HH:MM])");
  EXPECT_EQ(load[1].id, 1u);  // ids stay consecutive
}

TEST(CsvReader, HeaderProblemsRefuseTheLoadEvenWhenSkipping) {
  read_options skip;
  skip.skip_bad_rows = true;
  EXPECT_EQ(error_reading("TIMESTAMP,ContextTokens\n2023-11-16 18:15:46,1\n", load_format::azure, skip),
            "t.csv:1: header has no column 'GeneratedTokens' (the azure format needs TIMESTAMP, "
            "ContextTokens, GeneratedTokens; the header is 'TIMESTAMP,ContextTokens')");
  EXPECT_EQ(error_reading(azure_header, load_format::automatic),
            "t.csv: no requests: no data rows after line 1");
  EXPECT_EQ(error_reading(azure_header + "x,1,1\n", load_format::automatic, skip),
            "t.csv: no requests: all 1 rows skipped (1 bad, 0 failed requests); first: t.csv:2: "
            "column 'TIMESTAMP': cannot parse timestamp 'x' (expected YYYY-MM-DD "
            "HH:MM:SS[.fraction][+HH:MM])");
}

TEST(Csv, SplitAndFindColumns) {
  std::vector<std::string_view> f;
  ASSERT_TRUE(split_csv(" a , \"b,c\" ,,d", f));
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0], "a");
  EXPECT_EQ(f[1], "b,c");
  EXPECT_EQ(f[2], "");
  EXPECT_EQ(f[3], "d");
  ASSERT_TRUE(split_csv("x,", f));
  EXPECT_EQ(f.size(), 2u);
  EXPECT_FALSE(split_csv("\"open", f));
  // Text between a closing quote and the comma would be lost: the line is refused instead.
  EXPECT_FALSE(split_csv("1,\"a \"#\"\"\"b\",2", f));
  EXPECT_FALSE(split_csv("\"a\"b", f));
  ASSERT_TRUE(split_csv("\"a\" \t,\"b\"  ", f));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1], "b");
  // csv_cell writes what split_csv reads back exactly.
  for (const std::string_view text : {"plain", " lead", "trail ", "\ttab", "a,b", "say \"hi\"", "", "x\ny"}) {
    const std::string line = csv_cell(text) + "," + csv_cell(text);
    ASSERT_TRUE(split_csv(line, f)) << line;
    ASSERT_EQ(f.size(), 2u) << line;
    std::string back(f[0]);
    for (std::size_t at = 0; (at = back.find("\"\"", at)) != std::string::npos; ++at) back.erase(at, 1);
    EXPECT_EQ(back, text) << line;
  }
  const std::vector<std::string_view> header = {"Timestamp", "Request tokens"};
  EXPECT_EQ(find_column(header, "request TOKENS"), 1u);
  EXPECT_FALSE(find_column(header, "Response tokens"));
}

}  // namespace
}  // namespace kvscope
