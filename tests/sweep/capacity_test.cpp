#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "engine_test_support.hpp"
#include "run/run_service.hpp"
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

// From a hint, the search ends in the very bracket (the same doubles) the search from 1 finds on
// a monotone load, wherever the hint is; within a lattice step of the answer, at most four runs.
TEST(CapacitySearch, AHintEndsInTheSameBracketInFewerRuns) {
  const auto step_at = [](double truth, int& runs) {
    return [truth, &runs](double f) {
      ++runs;
      return capacity_probe{f, f <= truth, NAN};
    };
  };
  for (double tolerance : {0.01, 0.05, 0.001}) {
    for (double truth : {0.013, 0.37, 1.0, 1.0123, 1.7, 3.0, 250.0, 4000.5}) {
      int cold_runs = 0;
      const auto cold = search_capacity(step_at(truth, cold_runs), {0.99, tolerance, 65536});
      for (double hint : {truth, truth * 1.003, truth / 1.003, truth * 1.3, truth / 1.3, truth * 40, truth / 40,
                          cold.low, cold.high, 1e-9, 1e9}) {
        capacity_options options{0.99, tolerance, 65536};
        options.hint = hint;
        int runs = 0;
        const auto warm = search_capacity(step_at(truth, runs), options);
        EXPECT_EQ(warm.low, cold.low) << "truth " << truth << " hint " << hint << " tolerance " << tolerance;
        EXPECT_EQ(warm.high, cold.high) << "truth " << truth << " hint " << hint << " tolerance " << tolerance;
        EXPECT_EQ(static_cast<std::size_t>(runs), warm.probes.size());
        // Every rate tried is a double the search from 1 could have tried.
        for (const auto& p : warm.probes) EXPECT_GT(p.rate_factor, 0);
        if (hint == cold.low) {
          EXPECT_EQ(runs, 2) << truth;  // its own interval: one pass, one fail
        }
        if (std::abs(std::log(hint / truth)) < std::log1p(tolerance) / 2) {  // within a lattice step
          EXPECT_LE(runs, 4) << "truth " << truth << " hint " << hint;
          EXPECT_LT(runs, cold_runs) << "truth " << truth << " hint " << hint;
        }
      }
    }
  }
}

TEST(CapacitySearch, AHintSaysWhenNothingOrEverythingPasses) {
  capacity_options options{0.99, 0.01, 16};
  options.hint = 3;
  const auto none = search_capacity([](double f) { return capacity_probe{f, false, 0}; }, options);
  EXPECT_EQ(none.low, 0);
  EXPECT_EQ(none.high, 1.0 / 16);
  const auto all = search_capacity([](double f) { return capacity_probe{f, true, 1}; }, options);
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

// A probe that stops as soon as its run cannot pass answers as the whole run does, on two real
// traces at rates from well under to far over their capacity; and it does stop early.
TEST(CapacityProbe, StoppingEarlyGivesTheWholeRunsAnswer) {
  const std::string data = KVSCOPE_TEST_DATA_DIR;
  struct load_case {
    std::string file;
    const char* slo;
  };
  std::size_t stopped = 0;
  for (const load_case& c : {load_case{data + "/azure_conv_500.csv", "ttft=1,tpot=0.05"},
                             load_case{data + "/mooncake_200.jsonl", "ttft=2,tpot=0.1"}}) {
    run_description run;
    run.load_spec = c.file;
    run.options.model = "llama3-8b";
    run.options.gpu = "h100";
    run.options.budget_bytes = 4ull << 30;
    run.options.slo = c.slo;
    ASSERT_TRUE(resolve_run_setup(run));
    const auto facts = read_load_facts(run);
    for (double f : {0.25, 0.75, 1.0, 1.5, 3.0}) {
      const capacity_probe probe = probe_capacity(run, facts.requests, f, 0.99, nullptr, nullptr);
      run_description whole = run;
      whole.arrival_time_scale = run.arrival_time_scale / f;
      const double attained = run_to_end(whole, run_hooks{}).summary.service.slo_attainment;
      EXPECT_EQ(probe.pass, attained >= 0.99) << c.file << " at " << f << "x: " << attained;
      if (probe.completed_share < 1) {
        ++stopped;
        EXPECT_FALSE(probe.pass);
        EXPECT_TRUE(std::isnan(probe.attainment));
      }
    }
  }
  EXPECT_GT(stopped, 0u);
}

}  // namespace
}  // namespace kvscope
