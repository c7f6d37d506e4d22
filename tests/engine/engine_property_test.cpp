// Invariants of the whole engine under random loads, configurations and policy changes
// (rapidcheck). After every step the pool is recounted from its frames, independently of the
// engine's own metrics: frames are conserved, no refcount wrapped below zero, no block is both
// free and referenced, the bytes per level add up to the pool's accounting, and every request
// that arrived is finished, rejected or still queued. Cases are small (tiny model, a few MiB,
// at most ~80 requests) so the default 100 cases take a few seconds.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <array>
#include <cstdlib>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "engine_test_support.hpp"
#include "policy/policy_config.hpp"

namespace kvscope {
namespace {

struct engine_case {
  engine_options options;
  std::string load;
  std::uint64_t requests = 0;
  std::vector<std::pair<std::uint64_t, std::string>> reconfigure;  // step, preset
};

// What rapidcheck prints of a failing case: enough to run it again with kvscope-cli.
void showValue(const engine_case& c, std::ostream& os) {
  os << "load " << c.load << ", budget " << c.options.budget_bytes << " B, block_size " << c.options.block_size
     << ", tail_tokens " << c.options.tail_tokens << ", migration_batch " << c.options.migration_batch
     << ", prefix_caching " << c.options.prefix_caching << ", max_concurrency " << c.options.max_concurrency
     << ", payload " << (c.options.payload == payload_mode::data ? "data" : "accounting") << ", policy q8 "
     << c.options.policy.q8_threshold << " q4 " << c.options.policy.q4_threshold << " alpha "
     << c.options.policy.ewma_alpha << " hysteresis " << c.options.policy.hysteresis;
  for (const auto& [step, preset] : c.reconfigure) os << ", at step " << step << " preset " << preset;
}

rc::Gen<engine_case> gen_case() {
  const auto presets = policy_preset_names();
  return rc::gen::exec([presets] {
    engine_case c;
    // Data mode (real K/V bytes written and re-quantized) in one case of eight: it is slower.
    const auto payload = *rc::gen::inRange(0, 8) == 0 ? payload_mode::data : payload_mode::accounting;
    c.options = test::tiny_options(*rc::gen::inRange<std::uint64_t>(1, 9) << 20, payload);
    c.options.quality_every = 0;
    c.options.block_size = *rc::gen::element<std::uint32_t>(8, 16, 32);
    c.options.tail_tokens = *rc::gen::element<std::uint32_t>(0, 16, 64, 256);
    c.options.migration_batch = *rc::gen::inRange<std::uint32_t>(1, 128);
    c.options.prefix_caching = *rc::gen::arbitrary<bool>();
    c.options.max_concurrency = *rc::gen::element<std::uint32_t>(0, 0, 2, 8);
    c.options.policy = *policy_preset(presets[*rc::gen::inRange<std::size_t>(0, presets.size())]);
    c.requests = *rc::gen::inRange<std::uint64_t>(1, 80);
    const int rate = *rc::gen::inRange(1, 200);
    const int prompt = *rc::gen::inRange(8, 3000);
    const int output = *rc::gen::inRange(1, 300);
    c.load = "gen:rate=" + std::to_string(rate) + ",prompt=lognormal:" + std::to_string(prompt) +
             ":0.8,output=uniform:" + std::to_string(output) + ":0.9,count=" + std::to_string(c.requests) +
             ",seed=" + std::to_string(*rc::gen::inRange(0, 1000));
    const auto changes = *rc::gen::inRange(0, 4);
    for (int i = 0; i < changes; ++i) {
      c.reconfigure.emplace_back(*rc::gen::inRange<std::uint64_t>(0, 400),
                                 std::string(presets[*rc::gen::inRange<std::size_t>(0, presets.size())]));
    }
    return c;
  });
}

// Recounts the pool from its frames and checks it against the pool and the step's metrics.
void check_pool(const engine& e) {
  const auto& cache = e.cache();
  RC_ASSERT(cache.audit() == std::string());
  const auto& pool = cache.pool();
  const auto usage = pool.usage();
  // Frames conserved: used + reserved for scales + free = all.
  RC_ASSERT(usage.used_frames + usage.scale_reserved_frames + usage.free_frames == pool.frame_count());
  const frame_map map = pool.snapshot();
  RC_ASSERT(map.frames.size() == pool.frame_count());
  std::array<std::uint64_t, kv_level_count> frame_bytes{}, references{};
  std::uint32_t used = 0;
  const auto sequences = cache.sequences().size();
  for (const auto& f : map.frames) {
    if (f.is_free()) continue;
    ++used;
    frame_bytes[ordinal(f.tier)] += map.frame_bytes;
    for (int s = 0; s < f.slot_count; ++s) {
      const auto& b = f.blocks[s];
      // A refcount that went below zero wraps to 65535: more sharers than there are sequences.
      RC_ASSERT(b.refcount <= sequences);
      // Free and referenced at once: a cached (free-for-reuse) block must have no references.
      RC_ASSERT(!(b.cached && b.refcount != 0));
      if (b.block != no_block) {
        RC_ASSERT(pool.is_live(b.block));
        RC_ASSERT(pool.refcount(b.block) == b.refcount);
      }
      references[ordinal(f.tier)] += b.refcount;
    }
  }
  RC_ASSERT(used == usage.used_frames);
  RC_ASSERT(references == pool.references());
  const auto& m = e.last_metrics();
  std::uint64_t total = m.scale_bytes + m.free_bytes;
  for (int l = 0; l < 4; ++l) {
    RC_ASSERT(m.bytes_per_level[l] == frame_bytes[l]);
    total += m.bytes_per_level[l];
  }
  RC_ASSERT(total == pool.budget_bytes());
  RC_ASSERT(pool.bytes_in_use() + pool.free_bytes() == pool.budget_bytes());
}

void pool_and_requests_stay_consistent_every_step() {
  const auto c = *gen_case();
  RC_PRE(!validate(c.options).has_value());
  engine e(c.options, test::gen_load(c.load));
  std::uint64_t guard = 0;
  while (true) {
    for (const auto& [step, preset] : c.reconfigure) {
      if (step == e.steps_done()) RC_ASSERT(e.reconfigure(*policy_preset(preset)).has_value());
    }
    if (!e.step()) break;
    check_pool(e);
    const auto& t = e.totals();
    const auto& m = e.last_metrics();
    // Every request that reached the server is finished, rejected, running or waiting.
    RC_ASSERT(t.requests_total == t.requests_finished + t.requests_rejected + m.num_requests_running +
                                      m.num_requests_waiting);
    RC_ASSERT(++guard < 200000);  // a run that never ends is a failure, not a hang
  }
  const auto& t = e.totals();
  RC_ASSERT(e.finished());
  RC_ASSERT(t.requests_total == c.requests);
  RC_ASSERT(t.requests_finished + t.requests_rejected == c.requests);
  RC_ASSERT(e.rejected().size() == t.requests_rejected);
  // The end: nothing referenced; only cached blocks (prefix cache) may hold memory.
  check_pool(e);
  RC_ASSERT(e.cache().pool().references() == (std::array<std::uint64_t, kv_level_count>{}));
}

// The cases to run: rapidcheck's (100, or RC_PARAMS's max_success), or KVSCOPE_PROPERTY_CASES.
// The tsan test preset sets that to a quarter: under ThreadSanitizer the 100 cases took 150 s, the
// longest test of the preset, yet what they check is the engine's bookkeeping, not its threads.
// A quarter still includes data-mode cases, whose parallel loops TSan then watches;
// Engine.DeterministicAcrossThreadCounts and Families.DataModeIsTheSameWhateverTheThreads cover
// those loops in depth.
rc::detail::TestParams property_params() {
  auto params = rc::detail::configuration().testParams;
  const char* cases = std::getenv("KVSCOPE_PROPERTY_CASES");
  if (cases != nullptr && std::atoi(cases) > 0) params.maxSuccess = std::atoi(cases);
  return params;
}

// RC_GTEST_PROP with property_params(): rapidcheck's gtest glue takes no parameters of its own.
TEST(EngineProperties, PoolAndRequestsStayConsistentEveryStep) {
  rc::detail::TestMetadata metadata;
  metadata.id = "EngineProperties/PoolAndRequestsStayConsistentEveryStep";
  metadata.description = "PoolAndRequestsStayConsistentEveryStep";
  const auto result =
      rc::detail::checkTestable(&pool_and_requests_stay_consistent_every_step, metadata, property_params());
  if (!result.is<rc::detail::SuccessResult>()) {
    std::ostringstream message;
    rc::detail::printResultMessage(result, message);
    FAIL() << message.str();
  }
}

}  // namespace
}  // namespace kvscope
