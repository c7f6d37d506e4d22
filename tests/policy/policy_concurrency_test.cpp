// observe() from many threads at once: nothing lost, nothing torn. Also run under TSan
// (cmake --workflow is not needed: `cmake --preset tsan && cmake --build --preset tsan &&
// ctest --preset tsan -R Concurrency`).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "policy/policy_controller.hpp"

namespace kvscope {
namespace {

TEST(PolicyConcurrency, EightThreadsTenThousandObservesEach) {
  constexpr int threads = 8;
  constexpr int per_thread = 10'000;
  policy_controller controller;
  std::atomic<bool> torn{false};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < per_thread; ++i) {
        // Pressures swing across both thresholds (and out of range, to exercise clamping).
        const double p = ((i * 7919 + t * 104729) % 1300) / 1000.0 - 0.1;
        const auto level = controller.observe(p);
        const double e = controller.ewma();
        if (!level || !(e >= 0.0 && e <= 1.0)) torn.store(true);
      }
    });
  }
  go.store(true);
  for (auto& th : pool) th.join();

  EXPECT_FALSE(torn.load());
  EXPECT_EQ(controller.samples(), static_cast<std::uint64_t>(threads) * per_thread);
  const double e = controller.ewma();
  EXPECT_GE(e, 0.0);
  EXPECT_LE(e, 1.0);
  // Every level change was counted exactly once: ups − downs equals the net ordinal change.
  const auto s = controller.state();
  EXPECT_EQ(static_cast<long long>(s.upgrades) - static_cast<long long>(s.downgrades),
            ordinal(s.level) - ordinal(precision::fp16));
  EXPECT_GT(s.upgrades, 0u);
}

}  // namespace
}  // namespace kvscope
