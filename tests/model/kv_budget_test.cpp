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
  // The larger of the forward run, 8192 tokens x (3 x 14336 + 2 x 4096) x 2 B, and the sampler's,
  // 1024 rows x 128256 x 8 B; plus 512 MiB outside PyTorch.
  const std::uint64_t forward = 8192ull * (3 * 14336 + 2 * 4096) * 2;
  const std::uint64_t sampler = 1024ull * 128256 * 8;
  EXPECT_GT(sampler, forward);
  EXPECT_EQ(activation_reserve(model, 1, 8192, 1024), sampler + (512ull << 20));
  // Tensor parallelism splits the MLP width; the sampler's rows are at most the batch's tokens.
  EXPECT_EQ(activation_reserve(model, 2, 2048, 4096),
            2048ull * 128256 * 8 + (512ull << 20));
  EXPECT_EQ(activation_reserve(model, 2, 65536, 16),
            65536ull * (3 * 7168 + 2 * 4096) * 2 + (512ull << 20));
}

TEST(KvBudget, Llama8bOnOneH100) {
  const auto b = budget_auto(*builtin_model("llama3-8b"), *resolve_gpu("h100"));
  ASSERT_TRUE(b.has_value()) << b.error();
  // floor(81559 MiB x 0.9) - 16,060,522,496 weight bytes - 1,587,544,064 reserve.
  EXPECT_EQ(b->usable_bytes_per_gpu, 76'968'728'985u);
  EXPECT_EQ(b->weight_bytes_per_gpu, 16'060'522'496u);
  EXPECT_EQ(b->activation_reserve_bytes, 1'587'544'064u);
  EXPECT_EQ(b->per_gpu_bytes, 59'320'662'425u);
  EXPECT_EQ(b->total_bytes, b->per_gpu_bytes);
}

// What vLLM printed at start-up for Qwen3-32B, against what budget_auto says for the same server.
// 1. vLLM 0.26.0 on one H100 80GB, --gpu-memory-utilization 0.90, defaults otherwise: 8.52 GiB of
//    KV cache (the GKE snapshot guide's log, "discards 8.52 GiB of KV cache").
// 2. vLLM 0.27.1 on two RTX PRO 6000 Blackwell (95.01 GiB each), tp 2, utilization 0.426:
//    "Available KV cache memory: 8.22 GiB" per GPU, 30.59 GiB of weights each (a blog's log of
//    tensor against pipeline parallelism). docs/timing-model.md cites both.
TEST(KvBudget, MatchesPublishedStartUpLogs) {
  const auto qwen = *builtin_model("qwen3-32b");
  constexpr double gib = 1024.0 * 1024 * 1024;
  const auto h100 = budget_auto(qwen, *resolve_gpu("h100"));
  ASSERT_TRUE(h100.has_value()) << h100.error();
  EXPECT_NEAR(static_cast<double>(h100->per_gpu_bytes) / gib, 8.52, 0.05 * 8.52);

  gpu_spec pro6000 = *resolve_gpu("h100");
  pro6000.memory_bytes = static_cast<std::uint64_t>(95.01 * gib);
  budget_options two;
  two.tp = 2;
  two.gpu_memory_utilization = 0.426;
  const auto pair = budget_auto(qwen, pro6000, two);
  ASSERT_TRUE(pair.has_value()) << pair.error();
  EXPECT_NEAR(static_cast<double>(pair->per_gpu_bytes) / gib, 8.22, 0.05 * 8.22);
  // One 32,100-token request of the GPUStack "very long prompt" run (256 KiB a token) fits.
  EXPECT_GT(h100->total_bytes, 32'100ull * 262'144);
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

// A budget given beside --gpu (not auto) must fit in the GPU's memory next to its share of the
// weights; the refusal gives the numbers and what auto would give instead.
TEST(KvBudget, AnExplicitBudgetMustFitBesideTheWeights) {
  constexpr std::uint64_t gib = 1ull << 30;
  const auto h100 = *resolve_gpu("h100");
  const auto llama8b = *builtin_model("llama3-8b");
  EXPECT_FALSE(check_budget_fits(llama8b, h100, 40 * gib, {}));
  // 14.96 GiB of weights + 64 GiB = 78.96 GiB <= 79.65 GiB: tight, but not impossible.
  EXPECT_FALSE(check_budget_fits(llama8b, h100, 64 * gib, {}));
  const auto too_much = check_budget_fits(llama8b, h100, 100 * gib, {});
  ASSERT_TRUE(too_much);
  EXPECT_EQ(*too_much,
            "a KV budget of 100 GiB does not fit beside llama3-8b on 1 x h100: weights 14.96 GiB + KV budget "
            "100 GiB per GPU > 79.65 GiB of GPU memory; budget auto would give 55.25 GiB on 1 x h100");

  const auto llama70b = *builtin_model("llama3-70b");
  const auto one = check_budget_fits(llama70b, h100, 4 * gib, {});
  ASSERT_TRUE(one);
  EXPECT_EQ(one->rfind("a KV budget of 4 GiB does not fit beside llama3-70b on 1 x h100: weights 131.42 GiB + "
                       "KV budget 4 GiB per GPU > 79.65 GiB of GPU memory; budget auto finds no room on 1 x h100 "
                       "either; on 2 x h100 (tensor parallel) it would give ",
                       0),
            0u)
      << *one;
  // Tensor parallel splits the weights and the KV over the GPUs (8 KV heads: 2 shards on 2 GPUs).
  EXPECT_FALSE(check_budget_fits(llama70b, h100, 4 * gib, tp_of(2)));
  EXPECT_TRUE(check_budget_fits(llama70b, h100, 40 * gib, tp_of(2)));
  EXPECT_FALSE(check_budget_fits(llama70b, h100, 40 * gib, tp_of(4)));
}

}  // namespace
}  // namespace kvscope
