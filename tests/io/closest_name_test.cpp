// "Did you mean": the name a mistyped or vLLM-style name most likely meant, and none when
// nothing is close.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "util/closest_name.hpp"

namespace kvscope {
namespace {

const std::vector<std::string_view> metrics{"latency.ttft_s.mean", "latency.ttft_s.p50",  "latency.ttft_s.p99",
                                            "latency.tpot_s.p99",  "latency.e2e_s.p99",   "goodput_rps",
                                            "requests_per_s",      "preemptions",         "q8_threshold",
                                            "q4_threshold",        "q8_age_tokens"};

TEST(ClosestName, VllmNamesInMillisecondsFindTheMetricInSeconds) {
  EXPECT_EQ(closest_name("p99_ttft_ms", metrics), "latency.ttft_s.p99");
  EXPECT_EQ(closest_name("p99_tpot_ms", metrics), "latency.tpot_s.p99");
  EXPECT_EQ(closest_name("ttft_p99", metrics), "latency.ttft_s.p99");
  EXPECT_EQ(closest_name("latency.ttft_p99", metrics), "latency.ttft_s.p99");
}

TEST(ClosestName, ATypoFindsTheNearestSpelling) {
  EXPECT_EQ(closest_name("q8_treshold", metrics), "q8_threshold");
  EXPECT_EQ(closest_name("Preemption", metrics), "preemptions");
  EXPECT_EQ(closest_name("goodput", metrics), "goodput_rps");
}

TEST(ClosestName, NothingCloseGivesNothing) {
  EXPECT_EQ(closest_name("foo", metrics), std::nullopt);
  EXPECT_EQ(closest_name("wall_time_ms", metrics), std::nullopt);  // only the unit in common
  EXPECT_EQ(closest_name("x", std::vector<std::string_view>{}), std::nullopt);
  EXPECT_EQ(did_you_mean("foo", metrics), "");
}

TEST(ClosestName, DidYouMeanIsAppendedToAnError) {
  const std::vector<std::string> header{"index", "q8_threshold", "goodput_rps"};
  EXPECT_EQ(did_you_mean("goodput", header), " (did you mean 'goodput_rps'?)");
}

}  // namespace
}  // namespace kvscope
