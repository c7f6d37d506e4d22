// Simulated time is a double: far from 0 a step of microseconds would vanish next to the clock
// and every latency read 0. Arrivals later than max_arrival_s after the first are refused by
// every trace reader, naming the file, line and field; a generated load cannot reach them.
#include <gtest/gtest.h>

#include "load/generator.hpp"
#include "load/native_format.hpp"
#include "load_test_util.hpp"

namespace kvscope {
namespace {

using test::error_reading;

constexpr const char* beyond =
    "field '{}': 1e+18 s after the first request; arrivals must be within 1e9 s (31.7 years) of it, "
    "where simulated time stays exact to well under a microsecond";

std::string beyond_in(const std::string& where, const std::string& field) {
  std::string message = beyond;
  message.replace(message.find("{}"), 2, field);
  return where + ": " + message;
}

struct sample {
  load_format format;
  std::string header;
  std::string first, late;  // a row at 0 and one 1e18 s later
  std::string field;
};

std::vector<sample> samples() {
  const std::string native = native_header_line("t");
  return {
      {load_format::burstgpt, "Timestamp,Model,Request tokens,Response tokens\n", "0,GPT,10,2\n",
       "1e18,GPT,10,2\n", "Timestamp"},
      {load_format::vidur, "arrived_at,num_prefill_tokens,num_decode_tokens\n", "0,10,2\n",
       "1e18,10,2\n", "arrived_at"},
      // Mooncake counts milliseconds.
      {load_format::mooncake, "", R"({"timestamp": 0, "input_length": 10, "output_length": 2})" "\n",
       R"({"timestamp": 1e21, "input_length": 10, "output_length": 2})" "\n", "timestamp"},
      {load_format::native, native, R"({"id":0,"arrival_s":0,"prompt_tokens":10,"output_tokens":2})" "\n",
       R"({"id":1,"arrival_s":1e18,"prompt_tokens":10,"output_tokens":2})" "\n", "arrival_s"},
  };
}

TEST(ArrivalBound, EveryReaderRefusesAnArrivalBeyondItNamingFileLineAndField) {
  for (const auto& s : samples()) {
    SCOPED_TRACE(std::string(format_name(s.format)));
    const std::string text = s.header + s.first + s.late;
    const std::string line = std::to_string(s.header.empty() ? 2 : 3);
    EXPECT_EQ(error_reading(text, s.format), beyond_in("t.csv:" + line, s.field));
  }
}

TEST(ArrivalBound, TheFirstRequestsClockMayBeAnything) {
  // Times count from the first request: a trace on an epoch clock is not refused.
  const auto r = test::read_text("arrived_at,num_prefill_tokens,num_decode_tokens\n1e15,10,2\n1e15,10,2\n",
                                 load_format::vidur);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].arrival_s, 0.0);
}

TEST(ArrivalBound, JustBelowItIsRead) {
  const auto r = test::read_text("arrived_at,num_prefill_tokens,num_decode_tokens\n0,10,2\n999999999,10,2\n",
                                 load_format::vidur);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].arrival_s, 999999999.0);
}

TEST(ArrivalBound, SkipBadRowsSkipsAndCountsTheRow) {
  read_options options;
  options.skip_bad_rows = true;
  auto source = open_load_text(
      "t.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0,10,2\n1e18,10,2\n3,10,2\n",
      load_format::vidur, options);
  EXPECT_EQ(read_all(*source).size(), 2u);
  EXPECT_EQ(source->counters().bad_rows, 1u);
  ASSERT_EQ(source->counters().bad_row_messages.size(), 1u);
  EXPECT_EQ(source->counters().bad_row_messages[0], beyond_in("t.csv:3", "arrived_at"));
}

std::string spec_error(const std::string& spec) {
  const auto parsed = parse_generator_spec(spec);
  return parsed ? "" : parsed.error();
}

TEST(ArrivalBound, AGeneratorSpecCannotAskForLaterArrivals) {
  EXPECT_EQ(spec_error("gen:rate=1,duration=2e9"), "gen spec: duration='2e9': must be in (0, 1e9] seconds");
  EXPECT_EQ(spec_error("gen:rate=1,duration=1e9"), "");
  EXPECT_EQ(spec_error("gen:rate=1e-9,count=2"),
            "gen spec: count=2 at rate=1e-09 takes about 2e+09 s, beyond the 1e9 s a load may "
            "last; give a higher rate or duration=");
  EXPECT_EQ(spec_error("gen:rate=1e-9,count=2,duration=1e9"), "");
  EXPECT_EQ(spec_error("gen:concurrency=2,count=1000000"), "");
}

// Very bursty gaps (k = 0.01) with a mean end near the bound: some seeds would pass it.
TEST(ArrivalBound, AGeneratedLoadEndsBeforeIt) {
  bool some_cut_short = false;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    auto spec = parse_generator_spec("gen:rate=1e-8,burstiness=0.01,count=9,seed=" + std::to_string(seed));
    ASSERT_TRUE(spec) << spec.error();
    generator_source source(*spec);
    const auto all = read_all(source);
    for (const auto& r : all) EXPECT_LT(r.arrival_s, max_arrival_s) << "seed " << seed;
    some_cut_short = some_cut_short || all.size() < 9;
  }
  EXPECT_TRUE(some_cut_short) << "no seed reaches the bound: the test does not test it";
}

}  // namespace
}  // namespace kvscope
