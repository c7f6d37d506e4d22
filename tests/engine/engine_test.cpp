#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include "run/run_summary.hpp"
#include "engine_test_support.hpp"

namespace kvscope {
namespace {

using test::gen_load;
using test::run_rows;
using test::tiny_options;

constexpr const char* busy_load =
    "gen:rate=30,prompt=lognormal:600:0.6,output=uniform:150:0.5,count=400,seed=3";

// At the end every frame is free or holds a cached block nobody references.
void expect_no_leaks(const engine& e) {
  EXPECT_EQ(e.cache().audit(), "");
  EXPECT_TRUE(e.cache().sequences().empty());
  const auto usage = e.cache().pool().usage();
  for (const auto& tier : usage.tiers) EXPECT_EQ(tier.blocks, tier.cached_blocks);
  EXPECT_EQ(e.pressure(), 0.0);
}

// Found by EngineProperties: with prefix caching, every frame held cached blocks, nothing ran,
// and the head request waited forever, because admission's bound on what evicting could free
// counted a compressed tier's cached blocks as packed (194 q4 blocks sat in 52 frames, not 49)
// and, with nothing running to free frames later, it never evicted them.
TEST(Engine, AHeadRequestThatEvictingCanAdmitDoesNotWaitForever) {
  auto o = tiny_options(2ull << 20, payload_mode::accounting);
  o.block_size = 16;
  o.tail_tokens = 64;
  o.migration_batch = 112;
  engine e(o, gen_load("gen:rate=183,prompt=lognormal:521:0.8,output=uniform:191:0.9,count=24,seed=204"));
  std::uint64_t steps = 0;
  while (e.step() && ++steps < 100000) {
  }
  ASSERT_TRUE(e.finished()) << "still running after " << steps << " steps";
  EXPECT_EQ(e.totals().requests_finished, 22u);
  EXPECT_EQ(e.totals().requests_rejected, 2u);  // longer than the whole pool holds
}

TEST(Engine, ConservationEveryRequestFinishesOrIsRejected) {
  auto o = tiny_options(8ull << 20, payload_mode::accounting);
  engine e(o, gen_load(busy_load));
  while (e.step()) {
  }
  const auto& t = e.totals();
  EXPECT_EQ(t.requests_total, 400u);
  EXPECT_EQ(t.requests_finished + t.requests_rejected, t.requests_total);
  EXPECT_EQ(t.requests_rejected, e.rejected().size());
  expect_no_leaks(e);
}

TEST(Engine, HugeRequestIsRejectedWithAReasonNotLoopedForever) {
  auto o = tiny_options(1ull << 20, payload_mode::accounting);  // 64 frames = 1024 tokens
  o.policy = *policy_preset("fp16_only");
  engine e(o, gen_load("gen:rate=1,prompt=fixed:5000,output=fixed:10,count=3,seed=1"));
  while (e.step()) {
  }
  ASSERT_EQ(e.rejected().size(), 3u);
  EXPECT_NE(e.rejected()[0].reason.find("more than the whole pool"), std::string::npos);
  expect_no_leaks(e);
}

TEST(Engine, DeterministicAcrossThreadCounts) {
  auto o = tiny_options(1ull << 20, payload_mode::data);
  o.quality_every = 7;
  o.migration_batch = 8;
  const char* load = "gen:rate=30,prompt=lognormal:300:0.6,output=uniform:80:0.5,count=60,seed=3";
  std::vector<std::string> one, two;
  {
    tbb::global_control c(tbb::global_control::max_allowed_parallelism, 1);
    engine e(o, gen_load(load));
    one = run_rows(e);
  }
  {
    tbb::global_control c(tbb::global_control::max_allowed_parallelism, 2);
    engine e(o, gen_load(load));
    two = run_rows(e);
    EXPECT_GT(e.totals().migrated_blocks, 0u);
    EXPECT_GT(e.totals().quality_samples, 0u);
  }
  ASSERT_FALSE(one.empty());
  EXPECT_EQ(one, two);
}

TEST(Engine, OversubscribedLoadPreemptsAndRecovers) {
  auto o = tiny_options(2ull << 20, payload_mode::accounting);  // 128 frames = 2048 tokens
  o.policy = *policy_preset("fp16_only");
  o.scheduler.watermark = 0;
  engine e(o, gen_load("gen:rate=100,prompt=fixed:200,output=fixed:600,count=40,seed=2"));
  while (e.step()) {
  }
  EXPECT_GT(e.totals().preemptions, 0u);
  EXPECT_EQ(e.totals().requests_finished, 40u);
  expect_no_leaks(e);
}

TEST(Engine, PrefixSharingUsesFewerFramesThanTheSameLoadWithout) {
  const char* shared =
      "gen:rate=50,prompt=fixed:1024,output=fixed:32,prefix_groups=2,prefix_len=960,count=200,"
      "seed=4";
  auto o = tiny_options(64ull << 20, payload_mode::accounting);
  o.policy = *policy_preset("fp16_only");
  double peak_with = 0, peak_without = 0;
  {
    engine e(o, gen_load(shared));
    while (e.step()) peak_with = std::max(peak_with, e.pressure());
    EXPECT_GT(e.totals().prefix.hits, 0u);
    EXPECT_GT(summarize(e, "", 1).prefix_cache_hit_rate, 0.5);
  }
  o.prefix_caching = false;
  {
    engine e(o, gen_load(shared));
    while (e.step()) peak_without = std::max(peak_without, e.pressure());
    EXPECT_EQ(e.totals().prefix.hits, 0u);
  }
  EXPECT_LT(peak_with, 0.6 * peak_without);
}

TEST(Engine, PolicyFollowsPressureAndColdBlocksAreCompressed) {
  auto o = tiny_options(2ull << 20, payload_mode::data);
  engine e(o, gen_load("gen:rate=30,prompt=lognormal:400:0.6,output=uniform:100:0.5,count=120,seed=5"));
  bool compressed = false;
  while (e.step()) {
    const auto& m = e.last_metrics();
    compressed = compressed || m.bytes_per_level[ordinal(precision::q8)] > 0 ||
                 m.bytes_per_level[ordinal(precision::q4)] > 0;
    std::uint64_t sum = m.scale_bytes + m.free_bytes;
    for (auto b : m.bytes_per_level) sum += b;
    ASSERT_EQ(sum, e.cache().pool().budget_bytes());
    // The cached bytes are the held bytes the pressure leaves out (to the byte it was rounded to).
    const double budget = static_cast<double>(e.cache().pool().budget_bytes());
    const double held = budget - static_cast<double>(m.free_bytes);
    ASSERT_LE(m.cached_bytes, sum - m.free_bytes);
    ASSERT_NEAR(m.kv_cache_usage_perc * budget, held - static_cast<double>(m.cached_bytes), 1.0) << m.step;
  }
  EXPECT_GT(e.totals().level_transitions, 0u);
  EXPECT_TRUE(compressed);
  EXPECT_GT(e.totals().migrated_blocks, 0u);
  const auto s = summarize(e, "", 1);
  EXPECT_TRUE(std::isfinite(s.quant_rel_rmse[ordinal(precision::fp16)]));
  EXPECT_TRUE(std::isfinite(s.quant_rel_rmse[ordinal(precision::q8)]) ||
              std::isfinite(s.quant_rel_rmse[ordinal(precision::q4)]));
  expect_no_leaks(e);
}

TEST(Engine, ReconfigureAtStepKChangesBehaviourFromStepKOn) {
  auto o = tiny_options(8ull << 20, payload_mode::accounting);
  engine a(o, gen_load(busy_load));
  engine b(o, gen_load(busy_load));
  constexpr std::uint64_t k = 150;
  std::uint64_t first_difference = 0;
  bool differs = false;
  while (true) {
    if (b.steps_done() == k) {
      ASSERT_TRUE(b.reconfigure(*policy_preset("aggressive")).has_value());
    }
    const bool more_a = a.step();
    const bool more_b = b.step();
    if (!more_a || !more_b) break;
    if (!differs && metrics_csv_row(a.last_metrics()) != metrics_csv_row(b.last_metrics())) {
      differs = true;
      first_difference = a.last_metrics().step;
    }
  }
  ASSERT_TRUE(differs);
  EXPECT_EQ(first_difference, k);  // identical before k, different from k on
}

// A load far beyond what the server finishes: its waiting queue grew by the arrival rate until
// the machine ran out of memory. Past max_waiting_requests the run stops and says how overloaded.
TEST(Engine, AnOverloadedQueueStopsAtItsBoundAndSaysHowOverloaded) {
  auto o = tiny_options(8ull << 20, payload_mode::accounting);
  o.max_waiting_requests = 1000;
  engine e(o, gen_load("gen:rate=1e6,prompt=fixed:200,output=fixed:100,duration=1000,seed=1"));
  std::string message;
  try {
    while (e.step()) {
    }
  } catch (const overload_error& err) {
    message = err.what();
  }
  ASSERT_FALSE(message.empty()) << "the run should have stopped as overloaded";
  EXPECT_EQ(message.rfind("overloaded: 1001 requests waiting at ", 0), 0u) << message;
  EXPECT_NE(message.find("(max_waiting_requests 1000)"), std::string::npos) << message;
  EXPECT_NE(message.find(" had arrived ("), std::string::npos) << message;
  EXPECT_LE(e.totals().requests_total, 1001u + 64);  // stopped at once, not after the load

  // Under the bound the same load runs on: a bound of the whole load never trips.
  o.max_waiting_requests = 1'000'000;
  engine calm(o, gen_load("gen:rate=1e6,prompt=fixed:200,output=fixed:100,count=2000,seed=1"));
  EXPECT_NO_THROW(while (calm.step()) {});
  EXPECT_EQ(calm.totals().requests_finished, 2000u);
}

TEST(Engine, InvalidOptionsAreRefusedWithAReason) {
  auto o = tiny_options(8ull << 20, payload_mode::accounting);
  o.model = "gpt-9";
  EXPECT_EQ(validate(o), "model: unknown model 'gpt-9' (built-in: tiny, llama3-8b, llama3-70b, qwen3-8b, qwen3-14b, qwen3-32b, "
            "mistral-7b; or a config.json path ending in .json)");
  o = tiny_options(100, payload_mode::accounting);
  EXPECT_TRUE(validate(o).has_value());
  EXPECT_THROW(engine(o, gen_load(busy_load)), std::invalid_argument);
}

// The GUI shows these reasons to people who typed no flag: they name options by key, never
// by a CLI flag ("--gpu").
TEST(Engine, RefusalsNameTheOptionNotAFlag) {
  const auto refusal = [](auto change) {
    auto o = tiny_options(8ull << 20, payload_mode::accounting);
    change(o);
    return validate(o).value_or("(accepted)");
  };
  const std::string reasons[] = {
      refusal([](engine_options& o) { o.gpu = "h900"; }),
      refusal([](engine_options& o) { o.budget_bytes = 0; }),
      refusal([](engine_options& o) { o.tensor_parallel = 2; }),
      refusal([](engine_options& o) { o.timing_model = timing_kind::roofline; }),
      refusal([](engine_options& o) { o.compute_efficiency = 0.5; }),
      refusal([](engine_options& o) { o.slo = "ttft=-1"; }),
      refusal([](engine_options& o) { o.gpu = "h100", o.tensor_parallel = 3; }),
  };
  EXPECT_EQ(reasons[1], "budget auto needs a GPU to size the KV cache on");
  EXPECT_EQ(reasons[2], "tensor_parallel needs a GPU to split the model over");
  for (const auto& why : reasons) {
    EXPECT_NE(why, "(accepted)");
    EXPECT_EQ(why.find("--"), std::string::npos) << why;
  }
}

// An engine built from a resolved setup sizes its cache on the setup's budget (what `auto`
// chose), not on the options' (0 for auto), and keeps the options as they were given.
TEST(Engine, BuiltFromASetupSizesItsCacheOnTheSetupsBudget) {
  const auto o = tiny_options(64ull << 20, payload_mode::accounting);
  auto setup = resolve_setup(o);
  ASSERT_TRUE(setup.has_value()) << setup.error();
  setup->budget_bytes = 8ull << 20;
  const engine from_setup(*setup, gen_load(busy_load));
  const engine from_options(tiny_options(8ull << 20, payload_mode::accounting), gen_load(busy_load));
  EXPECT_EQ(from_setup.cache().pool().budget_bytes(), from_options.cache().pool().budget_bytes());
  EXPECT_LT(from_setup.cache().pool().budget_bytes(), 64ull << 20);
  EXPECT_EQ(from_setup.setup().budget_bytes, 8ull << 20);
  EXPECT_EQ(from_setup.options().budget_bytes, 64ull << 20);
}

}  // namespace
}  // namespace kvscope
