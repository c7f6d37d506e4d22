// Generated loads: the asked rate and burstiness within 2 % over 100,000 requests, the asked
// lengths, shared prefixes, and the same requests for the same seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "load/generator.hpp"

namespace kvscope {
namespace {

generator_spec spec_of(std::string_view text) {
  auto spec = parse_generator_spec(text);
  EXPECT_TRUE(spec) << (spec ? "" : spec.error());
  return spec ? *spec : generator_spec{};
}

std::vector<request> generate(std::string_view text) {
  generator_source source(spec_of(text));
  return read_all(source);
}

struct gap_stats {
  double rate;
  double cv;
};

gap_stats measure(const std::vector<request>& load) {
  const std::size_t gaps = load.size() - 1;
  double sum = 0, sq = 0;
  for (std::size_t i = 1; i < load.size(); ++i) {
    const double g = load[i].arrival_s - load[i - 1].arrival_s;
    sum += g;
    sq += g * g;
  }
  const double mean = sum / static_cast<double>(gaps);
  const double var = sq / static_cast<double>(gaps) - mean * mean;
  return {1.0 / mean, std::sqrt(var) / mean};
}

class ArrivalStatistics : public ::testing::TestWithParam<double> {};

TEST_P(ArrivalStatistics, RateAndCvWithinTwoPercentOver100kRequests) {
  const double k = GetParam();
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto load = generate("gen:rate=8,burstiness=" + std::to_string(k) +
                               ",count=100000,seed=" + std::to_string(seed));
    ASSERT_EQ(load.size(), 100000u);
    const auto s = measure(load);
    EXPECT_NEAR(s.rate / 8.0, 1.0, 0.02) << "k=" << k << " seed=" << seed;
    EXPECT_NEAR(s.cv * std::sqrt(k), 1.0, 0.02) << "k=" << k << " seed=" << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Burstiness, ArrivalStatistics, ::testing::Values(0.5, 1.0, 4.0));

TEST(Generator, FirstRequestAtZeroTimesNonDecreasingIdsInOrder) {
  const auto load = generate("gen:rate=50,burstiness=0.3,count=5000,seed=9");
  ASSERT_EQ(load.size(), 5000u);
  EXPECT_EQ(load.front().arrival_s, 0.0);
  for (std::size_t i = 0; i < load.size(); ++i) {
    EXPECT_EQ(load[i].id, i);
    if (i > 0) {
      EXPECT_GE(load[i].arrival_s, load[i - 1].arrival_s);
    }
  }
}

TEST(Generator, SameSeedSameRequestsOtherSeedOtherRequests) {
  const std::string base =
      "gen:rate=4,burstiness=0.5,prompt=lognormal:1000:0.8,output=uniform:200:0.5,duration=600,"
      "prefix_groups=5,prefix_len=300,seed=";
  const auto a = generate(base + "7"), b = generate(base + "7"), c = generate(base + "8");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(Generator, PinnedLoadDoesNotDriftBetweenBuilds) {
  // Guards the promise that a seed names one load forever (own PRNG and distributions).
  const auto load = generate(
      "gen:rate=4,burstiness=0.5,prompt=lognormal:1000:0.8,output=uniform:200:0.5,count=3,seed=7");
  ASSERT_EQ(load.size(), 3u);
  EXPECT_EQ(load[0].prompt_tokens, 723u);
  EXPECT_EQ(load[0].output_tokens, 263u);
  EXPECT_EQ(load[2].prompt_tokens, 4191u);
  EXPECT_DOUBLE_EQ(load[2].arrival_s, 0.1514045709381428);
}

TEST(Generator, ChangingOneDistributionLeavesTheOthersAlone) {
  const auto a = generate("gen:rate=3,prompt=lognormal:800:1,output=fixed:50,count=500,seed=1");
  const auto b = generate("gen:rate=3,prompt=lognormal:800:1,output=zipf:1.1:400,count=500,seed=1");
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].arrival_s, b[i].arrival_s);
    EXPECT_EQ(a[i].prompt_tokens, b[i].prompt_tokens);
  }
}

TEST(Generator, DurationAndCountStopTheLoad) {
  const auto by_time = generate("gen:rate=10,duration=30,seed=3");
  ASSERT_FALSE(by_time.empty());
  EXPECT_LT(by_time.back().arrival_s, 30.0);
  EXPECT_NEAR(static_cast<double>(by_time.size()), 300.0, 60.0);
  const auto both = generate("gen:rate=10,duration=30,count=17,seed=3");
  EXPECT_EQ(both.size(), 17u);
  const auto tiny = generate("gen:rate=0.001,duration=1,seed=3");
  EXPECT_EQ(tiny.size(), 1u);  // the first request is at 0, the next one far later
}

TEST(Generator, FixedUniformLognormalZipfLengths) {
  auto fixed = generate("gen:prompt=fixed:321,output=77,count=200");
  for (const auto& r : fixed) {
    EXPECT_EQ(r.prompt_tokens, 321u);
    EXPECT_EQ(r.output_tokens, 77u);
  }
  auto uniform = generate("gen:prompt=uniform:1000:0.5,output=uniform:10:1,count=100000,seed=2");
  double sum = 0;
  std::uint32_t lo = 1u << 30, hi = 0;
  for (const auto& r : uniform) {
    sum += r.prompt_tokens;
    lo = std::min(lo, r.prompt_tokens);
    hi = std::max(hi, r.prompt_tokens);
    ASSERT_GE(r.output_tokens, 1u);
    ASSERT_LE(r.output_tokens, 20u);
  }
  EXPECT_EQ(lo, 500u);
  EXPECT_EQ(hi, 1500u);
  EXPECT_NEAR(sum / 100000 / 1000, 1.0, 0.01);

  auto lognormal = generate("gen:prompt=lognormal:2000:0.7,count=100001,seed=4");
  std::vector<std::uint32_t> lengths;
  for (const auto& r : lognormal) lengths.push_back(r.prompt_tokens);
  std::nth_element(lengths.begin(), lengths.begin() + 50000, lengths.end());
  EXPECT_NEAR(lengths[50000] / 2000.0, 1.0, 0.02);  // the median is the asked median

  auto zipf = generate("gen:prompt=zipf:1.2:4096,count=100000,seed=5");
  std::map<std::uint32_t, int> counts;
  for (const auto& r : zipf) {
    ASSERT_GE(r.prompt_tokens, 1u);
    ASSERT_LE(r.prompt_tokens, 4096u);
    ++counts[r.prompt_tokens];
  }
  EXPECT_NEAR(static_cast<double>(counts[1]) / counts[2], std::pow(2.0, 1.2), 0.1);
}

TEST(Generator, PrefixGroupsShareChainedBlockHashes) {
  const auto load = generate(
      "gen:rate=5,prompt=uniform:600:0.5,count=4000,prefix_groups=6,prefix_len=256,prefix_zipf=1.2,"
      "block=16,seed=11");
  std::map<std::uint64_t, int> by_first;  // requests per group, by their first block hash
  for (const auto& r : load) {
    const std::uint32_t blocks = std::min<std::uint32_t>(256, r.prompt_tokens) / 16;
    ASSERT_EQ(r.prefix_hashes.size(), blocks);
    EXPECT_EQ(r.prefix_block_size, 16u);
    ++by_first[r.prefix_hashes.front()];
  }
  EXPECT_EQ(by_first.size(), 6u);
  // Same first block, same whole shared prefix.
  std::map<std::uint64_t, std::vector<std::uint64_t>> prefix_of;
  for (const auto& r : load) {
    auto [it, fresh] = prefix_of.emplace(r.prefix_hashes.front(), r.prefix_hashes);
    if (!fresh) {
      EXPECT_EQ(it->second, r.prefix_hashes);
    }
  }
  // Zipf popularity: the most popular group about 2^1.2 times the second.
  std::vector<int> sizes;
  for (auto [h, n] : by_first) sizes.push_back(n);
  std::sort(sizes.rbegin(), sizes.rend());
  EXPECT_NEAR(static_cast<double>(sizes[0]) / sizes[1], std::pow(2.0, 1.2), 0.25);
}

TEST(Generator, ShortPromptsShareOnlyTheirFullBlocks) {
  const auto load =
      generate("gen:prompt=fixed:40,count=10,prefix_groups=1,prefix_len=512,block=16,seed=1");
  for (const auto& r : load) EXPECT_EQ(r.prefix_hashes.size(), 2u);  // 40 tokens: 2 full blocks
  const auto none =
      generate("gen:prompt=fixed:10,count=3,prefix_groups=1,prefix_len=512,block=16,seed=1");
  for (const auto& r : none) {
    EXPECT_TRUE(r.prefix_hashes.empty());
    EXPECT_EQ(r.prefix_block_size, 0u);
  }
}

TEST(Generator, ProgressGoesFromZeroToOne) {
  generator_source source(spec_of("gen:rate=10,count=100"));
  EXPECT_EQ(source.progress(), 0.0);
  request r;
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(source.next(r));
  EXPECT_NEAR(source.progress(), 0.5, 1e-12);
  while (source.next(r)) {
  }
  EXPECT_EQ(source.progress(), 1.0);
  EXPECT_EQ(source.counters().requests, 100u);
}

}  // namespace
}  // namespace kvscope
