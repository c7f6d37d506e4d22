#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "engine_test_support.hpp"
#include "sweep/capacity_search.hpp"
#include "sweep/sweep_run.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

// A step function at a known factor: the bracket holds it and is within the tolerance.
TEST(CapacitySearch, BracketsAKnownThreshold) {
  for (double truth : {0.013, 0.37, 1.0, 1.7, 3.0, 250.0, 4000.5}) {
    int runs = 0;
    const auto r = search_capacity(
        [&](double f) {
          ++runs;
          return capacity_probe{f, f <= truth, NAN};
        },
        {0.99, 0.01, 65536});
    EXPECT_LE(r.low, truth) << truth;
    EXPECT_GT(r.high, truth) << truth;
    EXPECT_LE(r.high / r.low - 1, 0.01) << truth;
    EXPECT_EQ(static_cast<std::size_t>(runs), r.probes.size());
    EXPECT_LT(runs, 25) << truth;
  }
}

TEST(CapacitySearch, SaysWhenNothingOrEverythingPasses) {
  const auto none = search_capacity([](double f) { return capacity_probe{f, false, 0}; }, {0.99, 0.01, 16});
  EXPECT_EQ(none.low, 0);
  EXPECT_EQ(none.high, 1.0 / 16);
  const auto all = search_capacity([](double f) { return capacity_probe{f, true, 1}; }, {0.99, 0.01, 16});
  EXPECT_EQ(all.low, 16);
  EXPECT_TRUE(std::isinf(all.high));
}

// A load whose capacity is known by hand: requests of 100 prompt and 10 output tokens, one at a
// time (max_num_seqs 1), on the linear step-time model: a prefill step of 10 ms + 100 × 40 us
// and 9 decode steps of 10 ms + 80 us, so each request takes S = 14 + 9 × 10.08 = 104.72 ms and
// the server is a D/D/1 queue: below 1/S = 9.549 requests/s nothing waits, above it the queue
// grows by the excess each request. With an e2e SLO of 150 ms and 99 % of 200 requests to keep,
// the capacity is 1/S within a fraction of a percent; the search must land within 2 %.
TEST(CapacitySearch, FindsTheCapacityOfAConstantRateLoad) {
  test::temp_dir dir;
  const auto path = dir.file("constant.jsonl");
  {
    std::ofstream out(path);
    out << "{\"format\":\"kvscope-load\",\"version\":1,\"source\":\"constant rate\"}\n";
    for (int i = 0; i < 200; ++i) {
      out << "{\"id\":" << i << ",\"arrival_s\":" << i * 0.5 << ",\"prompt_tokens\":100,\"output_tokens\":10}\n";
    }
  }
  run_description run;
  run.load_spec = path;
  run.options = test::tiny_options(16ull << 20, payload_mode::accounting);
  run.options.scheduler.max_num_seqs = 1;
  run.options.slo = "e2e=0.15";
  const auto facts = read_load_facts(run);
  EXPECT_EQ(facts.requests, 200u);
  EXPECT_DOUBLE_EQ(facts.rate(), 2.0);
  EXPECT_TRUE(facts.checksum.starts_with("sha256:"));
  const capacity_options options;  // target 0.99, tolerance 1 %
  const auto r = search_capacity(
      [&](double f) { return probe_capacity(run, facts.requests, f, options.target, nullptr, nullptr); }, options);
  const double service_s = (10e-3 + 100 * 40e-6) + 9 * (10e-3 + 80e-6);
  const double truth = 1 / service_s;
  const double capacity = r.low * facts.rate();
  EXPECT_NEAR(capacity / truth, 1.0, 0.02) << capacity << " requests/s, by hand " << truth;
  EXPECT_LE(r.high / r.low - 1, options.tolerance);
  EXPECT_LE(capacity, truth * 1.02);
  EXPECT_GE(r.high * facts.rate(), truth * 0.98);
}

}  // namespace
}  // namespace kvscope
