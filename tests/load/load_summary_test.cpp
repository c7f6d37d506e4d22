// Totals and exact nearest-rank percentiles.
#include <gtest/gtest.h>

#include "load/load_summary.hpp"

namespace kvscope {
namespace {

TEST(LengthHistogram, NearestRankPercentiles) {
  length_histogram h;
  EXPECT_EQ(h.percentile(50), 0u);
  for (std::uint32_t v = 1; v <= 100; ++v) h.add(v);
  EXPECT_EQ(h.percentile(50), 50u);
  EXPECT_EQ(h.percentile(90), 90u);
  EXPECT_EQ(h.percentile(99), 99u);
  EXPECT_EQ(h.percentile(100), 100u);
  EXPECT_EQ(h.percentile(0.5), 1u);
}

TEST(LengthHistogram, VeryLongLengthsAreExactToo) {
  length_histogram h;
  h.add(3);
  h.add(5'000'000);
  h.add(4'000'000'000u);
  h.add(5'000'000);
  EXPECT_EQ(h.percentile(25), 3u);
  EXPECT_EQ(h.percentile(50), 5'000'000u);
  EXPECT_EQ(h.percentile(99), 4'000'000'000u);
  EXPECT_EQ(h.max(), 4'000'000'000u);
  EXPECT_EQ(h.count(), 4u);
}

TEST(LoadSummary, Totals) {
  load_summary s;
  request r;
  r.arrival_s = 0;
  r.prompt_tokens = 10;
  r.output_tokens = 2;
  s.add(r);
  r.arrival_s = 4.5;
  r.prompt_tokens = 30;
  r.output_tokens = 6;
  r.prefix_hashes = {1, 2, 3};
  r.prefix_block_size = 16;
  s.add(r);
  EXPECT_EQ(s.requests, 2u);
  EXPECT_EQ(s.prompt_tokens, 40u);
  EXPECT_EQ(s.output_tokens, 8u);
  EXPECT_EQ(s.duration_s(), 4.5);
  EXPECT_EQ(s.requests_with_prefix, 1u);
  EXPECT_EQ(s.prefix_blocks, 3u);
}

}  // namespace
}  // namespace kvscope
