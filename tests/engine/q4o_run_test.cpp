// Engine runs whose q4 level stores q4o (engine_options::q4_storage).
#include <gtest/gtest.h>

#include "engine_test_support.hpp"
#include "memory/error_factors.hpp"

namespace kvscope {
namespace {

using test::gen_load;

// Pressure from a small budget takes the policy through q8 to q4.
constexpr const char* q4o_run_load = test::pressured_load;

engine_options q4o_run_options(payload_mode payload) {
  engine_options o = test::tiny_options(2ull << 20, payload);
  o.policy.q8_threshold = 0.3f;
  o.policy.q4_threshold = 0.5f;
  o.q4_storage = q4_format::q4o;
  return o;
}

// Every step's exposure weighs the reads of q4 blocks by q4o's factor for the run's channels.
TEST(Q4oRun, ExposureChargesQ4BlocksQ4osFactor) {
  for (const std::uint32_t channels : {2u, 4u}) {
    auto o = q4o_run_options(payload_mode::accounting);
    o.q4o_channels = channels;
    const auto factors = attention_error_factors_for(q4_format::q4o, channels);
    engine e(o, gen_load(q4o_run_load));
    std::uint64_t q4_reads = 0;
    while (e.step()) {
      const auto& refs = e.cache().pool().references();
      double weighted = 0, reads = 0;
      for (int l = 0; l < 4; ++l) {
        weighted += static_cast<double>(refs[l]) * factors[l];
        reads += static_cast<double>(refs[l]);
      }
      q4_reads += refs[ordinal(precision::q4)];
      const double expected = reads > 0 ? weighted / reads : 0;
      ASSERT_DOUBLE_EQ(e.last_metrics().attention_error_exposure, expected) << "step " << e.steps_done();
    }
    EXPECT_GT(q4_reads, 0u) << channels;  // the run did read q4 blocks
    EXPECT_EQ(e.cache().pool().layout(precision::q4).scale_bytes,
              8192u / 32 * 4 + q4o_block_side_bytes(4, 16, channels));
  }
}

// The real q4o bytes, written and migrated on worker threads: the same metrics on 1 and 2.
TEST(Q4oRun, DataModeIsTheSameWhateverTheThreads) {
  auto o = q4o_run_options(payload_mode::data);
  o.quality_every = 7;
  o.migration_batch = 8;
  const auto one = test::run_rows_on(1, o, q4o_run_load);
  const auto two = test::run_rows_on(2, o, q4o_run_load);
  ASSERT_FALSE(one.empty());
  EXPECT_EQ(one, two);
  engine e(o, gen_load(q4o_run_load));
  while (e.step()) {
  }
  EXPECT_GT(e.totals().attention_squared_reference[ordinal(precision::q4)], 0);  // q4o blocks were measured
  EXPECT_EQ(e.cache().audit(), "");
}

}  // namespace
}  // namespace kvscope
