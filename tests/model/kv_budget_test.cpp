#include <gtest/gtest.h>

#include "model/builtin_models.hpp"
#include "model/kv_budget.hpp"

namespace kvscope {
namespace {

budget_options tp_of(std::uint32_t tp) {
  budget_options options;
  options.tp = tp;
  return options;
}

TEST(KvBudget, ActivationReserveByHand) {
  const auto model = *builtin_model("llama3-8b");
  // 8192 tokens x (4 x 4096 + 3 x 14336) x 2 B + 1024 x 128256 x 4 B + 1 GiB.
  const std::uint64_t expected =
      8192ull * (4 * 4096 + 3 * 14336) * 2 + 1024ull * 128256 * 4 + (1ull << 30);
  EXPECT_EQ(expected, 2'572'156'928u);
  EXPECT_EQ(activation_reserve(model, 1, 8192, 1024), expected);
  // Tensor parallelism splits the MLP width.
  EXPECT_EQ(activation_reserve(model, 2, 8192, 1024),
            8192ull * (4 * 4096 + 3 * 7168) * 2 + 1024ull * 128256 * 4 + (1ull << 30));
}

TEST(KvBudget, Llama8bOnOneH100) {
  const auto b = budget_auto(*builtin_model("llama3-8b"), *resolve_gpu("h100"));
  ASSERT_TRUE(b.has_value()) << b.error();
  // floor(81559 MiB x 0.9) - 16,060,522,496 weight bytes - 2,572,156,928 reserve.
  EXPECT_EQ(b->usable_bytes_per_gpu, 76'968'728'985u);
  EXPECT_EQ(b->weight_bytes_per_gpu, 16'060'522'496u);
  EXPECT_EQ(b->activation_reserve_bytes, 2'572'156'928u);
  EXPECT_EQ(b->per_gpu_bytes, 58'336'049'561u);
  EXPECT_EQ(b->total_bytes, b->per_gpu_bytes);
}

TEST(KvBudget, Llama70bNeedsMoreThanOneH100) {
  const auto model = *builtin_model("llama3-70b");
  const auto h100 = *resolve_gpu("h100");
  const auto one = budget_auto(model, h100);
  ASSERT_FALSE(one.has_value());
  EXPECT_EQ(one.error().rfind("llama3-70b does not fit on 1 x h100: weights 141.1 GB + "
                              "activation reserve ",
                              0),
            0u)
      << one.error();
  EXPECT_NE(one.error().find("per GPU > 77.0 GB usable (0.9 x 85.5 GB)"), std::string::npos)
      << one.error();

  budget_options four;
  four.tp = 4;
  const auto b = budget_auto(model, h100, four);
  ASSERT_TRUE(b.has_value()) << b.error();
  EXPECT_EQ(b->weight_bytes_per_gpu, 141'107'412'992u / 4);
  EXPECT_EQ(b->per_gpu_bytes,
            b->usable_bytes_per_gpu - b->weight_bytes_per_gpu - b->activation_reserve_bytes);
  EXPECT_EQ(b->total_bytes, 4 * b->per_gpu_bytes);
  EXPECT_TRUE(budget_auto(model, *resolve_gpu("h200"), tp_of(2)).has_value());
}

TEST(KvBudget, OptionsAreHonouredAndChecked) {
  const auto model = *builtin_model("qwen3-8b");
  const auto gpu = *resolve_gpu("a100-80g");
  budget_options fixed;
  fixed.activation_reserve_bytes = 1'000'000'000;
  fixed.gpu_memory_utilization = 0.5;
  const auto b = budget_auto(model, gpu, fixed);
  ASSERT_TRUE(b.has_value()) << b.error();
  EXPECT_EQ(b->activation_reserve_bytes, 1'000'000'000u);
  EXPECT_EQ(b->usable_bytes_per_gpu, (81920ull << 20) / 2);
  EXPECT_EQ(b->per_gpu_bytes, b->usable_bytes_per_gpu - weight_bytes(model) - 1'000'000'000u);

  budget_options none;
  none.gpu_memory_utilization = 0;
  const auto zero = budget_auto(model, gpu, none);
  ASSERT_FALSE(zero.has_value());
  EXPECT_EQ(zero.error(), "gpu_memory_utilization must be in (0, 1], got 0");
  const auto tp5 = budget_auto(model, gpu, tp_of(5));
  ASSERT_FALSE(tp5.has_value());
  EXPECT_EQ(tp5.error(), "tp 5 does not divide qwen3-8b's num_attention_heads (32)");
  EXPECT_FALSE(budget_auto(*builtin_model("qwen3-32b"), *resolve_gpu("rtx4090")).has_value());
}

}  // namespace
}  // namespace kvscope
