// Resampled arrivals: the same requests in the same order, new arrival times from a renewal
// process at the load's own mean rate, with the gaps' coefficient of variation asked for.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "load/generator.hpp"
#include "load/generator_spec.hpp"
#include "load/load_error.hpp"
#include "load/resampled_arrivals.hpp"
#include "load_test_util.hpp"

namespace kvscope {
namespace {

// A bursty generated load (gaps of CV 2) of `count` requests: its own gaps are not what the
// resampled ones are measured against, only its mean.
std::string resample_gen_load(std::uint64_t count) {
  return "gen:rate=40,burstiness=0.25,prompt=lognormal:300:0.5,output=uniform:60:0.5,count=" +
         std::to_string(count) + ",seed=17";
}

std::vector<request> resampled_requests(const std::string& spec, const std::string& process,
                                        std::uint64_t seed) {
  auto scan = open_load(spec, load_format::automatic, read_options{});
  const arrival_span span = scan_arrival_span(*scan);
  resampled_arrivals_source source(open_load(spec, load_format::automatic, read_options{}), span,
                                   *parse_arrival_process(process), seed);
  return read_all(source);
}

struct resampled_gap_stats {
  double mean = 0, cv = 0;
};

resampled_gap_stats stats_of_resampled_gaps(const std::vector<request>& rs) {
  double sum = 0, sum_sq = 0;
  const auto n = static_cast<double>(rs.size() - 1);
  for (std::size_t i = 1; i < rs.size(); ++i) sum += rs[i].arrival_s - rs[i - 1].arrival_s;
  const double mean = sum / n;
  for (std::size_t i = 1; i < rs.size(); ++i) {
    const double d = rs[i].arrival_s - rs[i - 1].arrival_s - mean;
    sum_sq += d * d;
  }
  return {mean, std::sqrt(sum_sq / (n - 1)) / mean};
}

TEST(ResampledArrivals, ParsesKeepPoissonAndGammaAndSaysWhatItExpects) {
  EXPECT_EQ(*parse_arrival_process("keep"), arrival_process{});
  EXPECT_EQ(parse_arrival_process("poisson")->shape, arrival_process::kind::poisson);
  const auto g = parse_arrival_process("gamma:2.5");
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->shape, arrival_process::kind::gamma);
  EXPECT_EQ(g->cv, 2.5);
  EXPECT_EQ(describe_arrival_process(*g), "Gamma (CV 2.5)");
  EXPECT_EQ(describe_arrival_process(*parse_arrival_process("poisson")), "Poisson");
  EXPECT_EQ(describe_arrival_process(arrival_process{}), "");
  for (const char* bad : {"", "Poisson", "gamma", "gamma:", "gamma:0", "gamma:-1", "gamma:11", "gamma:nan",
                          "gamma:2x", "gamma:inf", "bursty"}) {
    SCOPED_TRACE(bad);
    const auto p = parse_arrival_process(bad);
    ASSERT_FALSE(p.has_value());
    EXPECT_EQ(p.error().rfind("expected keep, poisson or gamma:CV", 0), 0u) << p.error();
    EXPECT_NE(p.error().find("got '" + std::string(bad) + "'"), std::string::npos) << p.error();
  }
}

TEST(ResampledArrivals, KeepsEveryRequestItsOrderAndTheFirstArrival) {
  const std::string trace = test::data_path("azure_conv_500.csv");
  const auto own = test::read_data_file("azure_conv_500.csv");
  const auto resampled = resampled_requests(trace, "gamma:3", 7);
  ASSERT_EQ(resampled.size(), own.size());
  ASSERT_GT(own.size(), 2u);
  EXPECT_EQ(resampled.front().arrival_s, own.front().arrival_s);
  EXPECT_NEAR(resampled.back().arrival_s, own.back().arrival_s, 1e-9 * own.back().arrival_s);
  bool some_time_moved = false;
  for (std::size_t i = 0; i < own.size(); ++i) {
    request same_time = resampled[i];
    same_time.arrival_s = own[i].arrival_s;
    EXPECT_EQ(same_time, own[i]) << "request " << i;  // id, lengths, prefixes, label
    if (i > 0) {
      EXPECT_GE(resampled[i].arrival_s, resampled[i - 1].arrival_s) << "request " << i;
    }
    some_time_moved |= resampled[i].arrival_s != own[i].arrival_s;
  }
  EXPECT_TRUE(some_time_moved);
}

TEST(ResampledArrivals, GapsHaveTheLoadsMeanAndTheCvAskedFor) {
  const std::string spec = resample_gen_load(20001);
  auto scan = open_load(spec, load_format::automatic, read_options{});
  const double load_gap = scan_arrival_span(*scan).mean_gap_s();
  ASSERT_GT(load_gap, 0);
  for (const auto& [process, cv] : std::vector<std::pair<std::string, double>>{
           {"poisson", 1.0}, {"gamma:0.5", 0.5}, {"gamma:3", 3.0}}) {
    SCOPED_TRACE(process);
    const auto rs = resampled_requests(spec, process, 1);
    ASSERT_EQ(rs.size(), 20001u);
    const auto s = stats_of_resampled_gaps(rs);
    // The gaps fill the load's own span: the mean is the load's but for rounding.
    EXPECT_NEAR(s.mean / load_gap, 1.0, 1e-9);
    EXPECT_NEAR(s.cv / cv, 1.0, 0.10);
  }
  // The load's own gaps have CV 2: a resampling that kept them would fail the checks above.
  auto own_load = open_load(spec, load_format::automatic, read_options{});
  const auto own = stats_of_resampled_gaps(read_all(*own_load));
  EXPECT_NEAR(own.cv, 2.0, 0.2);
}

TEST(ResampledArrivals, TheSameSeedGivesTheSameArrivalsAnotherSeedOthers) {
  const std::string spec = resample_gen_load(500);
  const auto a = resampled_requests(spec, "gamma:2", 42);
  EXPECT_EQ(resampled_requests(spec, "gamma:2", 42), a);
  EXPECT_NE(resampled_requests(spec, "gamma:2", 43), a);
  // Poisson is Gamma of CV 1, drawn the same way.
  EXPECT_EQ(resampled_requests(spec, "poisson", 42), resampled_requests(spec, "gamma:1", 42));
}

TEST(ResampledArrivals, OneRequestKeepsItsTimeAndAClosedLoopIsRefused) {
  const auto one = resampled_requests(resample_gen_load(1), "poisson", 3);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].arrival_s, 0.0);
  const std::string closed = "gen:concurrency=4,prompt=fixed:10,output=fixed:2,count=20,seed=1";
  try {
    (void)resampled_requests(closed, "poisson", 3);
    ADD_FAILURE() << "a closed loop was resampled";
  } catch (const load_error& e) {
    EXPECT_EQ(e.kind(), load_error_kind::bad_input);
    EXPECT_NE(std::string(e.what()).find("closed loop of 4 clients"), std::string::npos) << e.what();
  }
}

TEST(ResampledArrivals, CountersAndProgressAreTheInnerLoads) {
  const std::string spec = resample_gen_load(50);
  auto scan = open_load(spec, load_format::automatic, read_options{});
  resampled_arrivals_source source(open_load(spec, load_format::automatic, read_options{}),
                                   scan_arrival_span(*scan), *parse_arrival_process("poisson"), 0);
  request r;
  while (source.next(r)) {
  }
  EXPECT_EQ(source.counters().requests, 50u);
  EXPECT_EQ(source.counters().rows, 50u);
  EXPECT_EQ(source.progress(), 1.0);
  EXPECT_EQ(source.format_name(), "gen");
}

}  // namespace
}  // namespace kvscope
