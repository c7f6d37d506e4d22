#include <gtest/gtest.h>

#include <algorithm>

#include "model/all_reduce.hpp"
#include "model/builtin_models.hpp"
#include "model/roofline.hpp"
#include "quant/tier_layout.hpp"

namespace kvscope {
namespace {

roofline make(std::string_view model, std::string_view gpu, std::uint32_t tp = 1) {
  auto r = make_roofline({*builtin_model(model), *resolve_gpu(gpu), tp});
  EXPECT_TRUE(r.has_value()) << r.error();
  return std::move(r).value();
}

// llama3-8b: 8,030,261,248 bf16 parameters = 16,060,522,496 bytes; 131,072 KV bytes per token.
constexpr double llama8b_params = 8'030'261'248.0;
constexpr double llama8b_weights = 16'060'522'496.0;
constexpr double llama8b_kv_per_token = 131'072.0;
// What the kernels between the matmuls stream per token: 32 layers x 2 B x (8 x 4096 hidden +
// 2 x (32 + 8) x 128 for rotary q and k + 3 x 14336 for SiLU-and-mul).
constexpr double llama8b_activations_per_token = 32.0 * 2 * (8 * 4096 + 2 * 40 * 128 + 3 * 14336);

// One decode token attending to 1,000 cached tokens, all fp16.
step_work decode_1000() {
  step_work w;
  w.tokens = 1;
  w.context_token_reads = 1000;
  w.kv_bytes_read_by_level[0] = 1000 * 131'072;
  w.kv_bytes_written = 131'072;
  return w;
}

TEST(Roofline, DecodeBytesAndFlopsByHand) {
  const auto r = make("llama3-8b", "h100");
  const auto t = r.estimate(decode_1000());
  EXPECT_DOUBLE_EQ(t.bytes, llama8b_weights + 1001 * llama8b_kv_per_token + llama8b_activations_per_token);
  // 2 FLOPs per parameter, plus q.k and p.v: 4 x 32 layers x 32 heads x 128 per attended token.
  const double matmul_flops = 2 * llama8b_params, attention_flops = 4.0 * 32 * 32 * 128 * 1000;
  EXPECT_DOUBLE_EQ(t.flops, matmul_flops + attention_flops);
  EXPECT_EQ(t.bound, bound_by::memory);
  // The H100 holds 0.6595 of its benchmark rates through a serving run (resources/gpus/h100.json).
  const double eta_c = default_compute_efficiency * 0.6595, bandwidth = default_memory_efficiency * 3.35e12;
  const double kv_bandwidth = default_kv_memory_efficiency * 3.35e12;
  EXPECT_DOUBLE_EQ(t.memory_s, (llama8b_weights + llama8b_activations_per_token) / bandwidth +
                                   1001 * llama8b_kv_per_token / kv_bandwidth);
  // The H100's attainable rates: the best BF16 matmul (792.1 TFLOP/s), FlashAttention-3 (740).
  EXPECT_DOUBLE_EQ(t.compute_s, matmul_flops / (eta_c * 792.1e12) + attention_flops / (eta_c * 740e12));
  // Decode: both kernel classes wait on memory, the matmuls on the weights, attention on the KV.
  EXPECT_DOUBLE_EQ(t.matmul_s, llama8b_weights / bandwidth);
  EXPECT_DOUBLE_EQ(t.attention_s, 1001 * llama8b_kv_per_token / kv_bandwidth);
  EXPECT_DOUBLE_EQ(t.elementwise_s, llama8b_activations_per_token / bandwidth);
  EXPECT_EQ(t.comm_s, 0.0);
  EXPECT_DOUBLE_EQ(t.overhead_s, default_step_overhead_s + 32 * default_layer_overhead_s +
                                     0 * default_sequence_overhead_s);
  EXPECT_DOUBLE_EQ(t.seconds, t.overhead_s + t.matmul_s + t.attention_s + t.elementwise_s);
}

// A later step of a multi-step schedule pays its layers' launch costs but no host time: the
// schedule's first step scheduled it and prepared its inputs.
TEST(Roofline, LaterStepsOfAMultiStepSchedulePayNoHostTime) {
  const auto r = make("llama3-8b", "h100");
  step_work first = decode_1000();
  first.sequences = 3;
  step_work later = first;
  later.scheduled_earlier = true;
  const auto a = r.estimate(first), b = r.estimate(later);
  EXPECT_DOUBLE_EQ(a.overhead_s, default_step_overhead_s + 32 * default_layer_overhead_s + 3 * default_sequence_overhead_s);
  EXPECT_DOUBLE_EQ(b.overhead_s, 32 * default_layer_overhead_s);
  EXPECT_NEAR(a.seconds - b.seconds, default_step_overhead_s + 3 * default_sequence_overhead_s, 1e-15);
}

// A step that mixes a prefill chunk with long decodes pays for both: the chunk's matmuls are
// compute-bound, the decodes' attention waits on their KV, and the kernels run one after another.
TEST(Roofline, AMixedStepAddsItsKernelClasses) {
  step_work w;
  w.tokens = 2048 + 64;
  w.sequences = 65;
  w.context_token_reads = 2048ull * 2049 / 2 + 64ull * 8000;
  w.kv_bytes_read_by_level[0] = 64ull * 8000 * 131'072;
  const auto t = make("llama3-8b", "h100").estimate(w);
  EXPECT_GT(t.matmul_s, llama8b_weights / (default_memory_efficiency * 3.35e12));  // compute-bound
  EXPECT_DOUBLE_EQ(t.attention_s, 64.0 * 8000 * 131'072 / (default_kv_memory_efficiency * 3.35e12));
  EXPECT_DOUBLE_EQ(t.seconds, t.overhead_s + t.matmul_s + t.attention_s + t.elementwise_s);
  EXPECT_GT(t.seconds, std::max(t.compute_s, t.memory_s));  // more than the old single max
}

// Physics: a decode step reads every weight once, so weights / bandwidth is a floor on its time,
// whatever the efficiencies (4.8 ms for llama3-8b on an H100).
TEST(Roofline, WeightsOverBandwidthIsAFloorOnDecode) {
  const double floor_s = llama8b_weights / 3.35e12;
  EXPECT_NEAR(floor_s, 4.794e-3, 1e-6);
  const auto defaults = make("llama3-8b", "h100").estimate(decode_1000());
  EXPECT_GT(defaults.seconds, floor_s);
  EXPECT_GE(defaults.seconds, 4.5e-3);
  EXPECT_LE(defaults.seconds, 9e-3);

  auto ideal_gpu = *resolve_gpu("h100");
  ideal_gpu.compute_efficiency = ideal_gpu.memory_efficiency = ideal_gpu.kv_memory_efficiency = 1.0;
  ideal_gpu.step_overhead_s = ideal_gpu.layer_overhead_s = ideal_gpu.sequence_overhead_s = 0;
  const auto ideal = make_roofline({*builtin_model("llama3-8b"), ideal_gpu, 1});
  ASSERT_TRUE(ideal.has_value()) << ideal.error();
  const auto t = ideal->estimate(decode_1000());
  EXPECT_GT(t.seconds, floor_s);  // still above: the KV bytes come on top
  EXPECT_DOUBLE_EQ(t.seconds,
                   (llama8b_weights + 1001 * llama8b_kv_per_token + llama8b_activations_per_token) / 3.35e12);
}

TEST(Roofline, PrefillIsComputeBound) {
  step_work w;
  w.tokens = 1000;
  w.context_token_reads = 1000 * 1001 / 2;  // causal: token i attends to i tokens
  w.kv_bytes_written = 1000 * 131'072;
  const auto t = make("llama3-8b", "h100").estimate(w);
  EXPECT_EQ(t.bound, bound_by::compute);
  EXPECT_DOUBLE_EQ(t.flops, 2 * llama8b_params * 1000 + 4.0 * 32 * 32 * 128 * 500'500);
  EXPECT_GT(t.compute_s, t.memory_s);
  EXPECT_LT(t.seconds, 60e-3);
  EXPECT_GT(t.seconds, t.flops / 989.4e12);  // never faster than the peak
  EXPECT_DOUBLE_EQ(t.matmul_s, 2 * llama8b_params * 1000 / (default_compute_efficiency * 0.6595 * 792.1e12));
}

// The sustained share scales the arithmetic only: a prefill on a GPU holding half its benchmark
// rates takes twice the matmul and attention time; a decode, waiting on memory, does not change.
TEST(Roofline, TheSustainedShareSlowsArithmeticNotMemory) {
  auto gpu = *resolve_gpu("a100-80g");
  ASSERT_EQ(gpu.sustained_share, 1.0);  // the reference the shared efficiency is measured against
  const auto full = make_roofline({*builtin_model("llama3-8b"), gpu, 1});
  gpu.sustained_share = 0.5;
  const auto half = make_roofline({*builtin_model("llama3-8b"), gpu, 1});
  ASSERT_TRUE(full.has_value() && half.has_value());
  step_work prefill;
  prefill.tokens = 1000;
  prefill.context_token_reads = 1000 * 1001 / 2;
  EXPECT_DOUBLE_EQ(half->estimate(prefill).matmul_s, 2 * full->estimate(prefill).matmul_s);
  EXPECT_DOUBLE_EQ(half->estimate(prefill).attention_s, 2 * full->estimate(prefill).attention_s);
  EXPECT_DOUBLE_EQ(half->estimate(decode_1000()).seconds, full->estimate(decode_1000()).seconds);
}

TEST(Roofline, TensorParallelHalvesWeightsAndAddsCommunication) {
  const auto one = make("llama3-8b", "h100", 1);
  const auto two = make("llama3-8b", "h100", 2);
  EXPECT_DOUBLE_EQ(two.weight_bytes_read(1), one.weight_bytes_read(1) / 2);
  const auto t1 = one.estimate(decode_1000());
  const auto t2 = two.estimate(decode_1000());
  // Weights and the 8 KV heads split over 2 GPUs; of the activations only the hidden-wide ones
  // (8 x 4096 per layer) stay whole on each.
  const double whole = 32.0 * 2 * 8 * 4096;
  EXPECT_DOUBLE_EQ(t2.bytes - whole, (t1.bytes - whole) / 2);
  EXPECT_DOUBLE_EQ(t2.flops, t1.flops / 2);
  // 2 all-reduces x 32 layers of 4096 x 1 token x 2 B, each vLLM's one-stage kernel at tp 2.
  EXPECT_DOUBLE_EQ(t2.comm_s, 2.0 * 32 * all_reduce_seconds(4096.0 * 2, 2, 450e9));
  EXPECT_GT(t2.comm_s, 0.0);
  EXPECT_LT(t2.memory_s, t1.memory_s);
}

TEST(Roofline, KvHeadsReplicateBeyondTheirCount) {
  // llama3-70b has 8 KV heads: at tp 16 each GPU keeps one head, i.e. 1/8 of the KV, not 1/16.
  const auto r = make("llama3-70b", "h100", 16);
  step_work w;
  w.kv_bytes_written = 8'000'000;
  EXPECT_DOUBLE_EQ(r.estimate(w).bytes, 1'000'000.0);
}

TEST(Roofline, QuantizedKvMakesAKvHeavyStepFaster) {
  // 64 sequences decoding with 4,000 cached tokens each: 256,000 token reads.
  const auto model = *builtin_model("llama3-8b");
  const std::uint64_t reads = 64 * 4000;
  const std::uint64_t block_tokens = 16;
  const std::uint64_t block_values = block_tokens * kv_values_per_token(model);
  const auto bytes_at = [&](precision p) {
    return reads / block_tokens * block_layout(p, block_values).total_bytes();
  };
  step_work fp16;
  fp16.tokens = 64;
  fp16.context_token_reads = reads;
  fp16.kv_bytes_read_by_level[0] = bytes_at(precision::fp16);
  fp16.kv_token_reads_by_level[0] = reads;
  step_work q8 = fp16;
  q8.kv_bytes_read_by_level = {0, bytes_at(precision::q8), 0, 0};
  q8.kv_token_reads_by_level = {0, reads, 0, 0};

  const auto r = make("llama3-8b", "h100");
  const auto t16 = r.estimate(fp16);
  const auto t8 = r.estimate(q8);
  EXPECT_EQ(bytes_at(precision::fp16), reads * 131'072);
  EXPECT_LT(t8.bytes, t16.bytes);
  EXPECT_LT(t8.seconds, t16.seconds);
  // The q8 step pays 2 dequant FLOPs per KV value read; fp16 pays none.
  EXPECT_DOUBLE_EQ(t8.flops - t16.flops, 2.0 * static_cast<double>(reads) * 65'536);
  EXPECT_EQ(t16.bound, bound_by::memory);
}

TEST(Roofline, MigrationBytesCost) {
  const auto r = make("llama3-8b", "h100");
  auto w = decode_1000();
  const auto before = r.estimate(w);
  w.migration_bytes = 1'000'000'000;
  const auto after = r.estimate(w);
  EXPECT_DOUBLE_EQ(after.bytes - before.bytes, 1e9);
  EXPECT_GT(after.seconds, before.seconds);
}

TEST(Roofline, EmptyStepsCostNothingAndKvOnlyStepsReadNoWeights) {
  const auto r = make("llama3-8b", "h100");
  EXPECT_EQ(r.estimate(step_work{}), step_time{});
  step_work migrate_only;
  migrate_only.migration_bytes = 2'000'000;
  const auto t = r.estimate(migrate_only);
  EXPECT_DOUBLE_EQ(t.bytes, 2e6);
  EXPECT_EQ(t.flops, 0.0);
  EXPECT_GT(t.seconds, t.overhead_s);
}

TEST(Roofline, MoeReadsOnlyTheExpertsItsTokensTouch) {
  const auto mixtral = parse_model_config(R"({
    "model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336,
    "num_attention_heads": 32, "num_experts_per_tok": 2, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "num_local_experts": 8, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16", "vocab_size": 32000})",
                                          "mixtral.json");
  ASSERT_TRUE(mixtral.has_value()) << mixtral.error();
  const auto r = make_roofline({*mixtral, *resolve_gpu("h100"), 1});
  ASSERT_TRUE(r.has_value()) << r.error();
  const double expert = 3.0 * 4096 * 14336 * 2;  // bytes of one expert of one layer
  const double all = static_cast<double>(weight_bytes(*mixtral));
  const double shared = all - 32 * 8 * expert;
  // One token touches exactly its 2 experts per layer: 8 x (1 - (6/8)^1) = 2.
  EXPECT_NEAR(r->weight_bytes_read(1), shared + 32 * 2 * expert, 1.0);
  EXPECT_LT(r->weight_bytes_read(1), r->weight_bytes_read(4));
  EXPECT_NEAR(r->weight_bytes_read(1000), all, 1.0);  // every expert, bounded by the total
  EXPECT_LE(r->weight_bytes_read(1000), all + 1.0);
  // FLOPs follow the active parameters, not all of them.
  step_work w;
  w.tokens = 1;
  EXPECT_DOUBLE_EQ(r->estimate(w).flops, 2.0 * 12'879'925'248);
}

TEST(Roofline, BadConfigsAreRefused) {
  const auto model = *builtin_model("llama3-8b");
  const auto gpu = *resolve_gpu("h100");
  const auto tp3 = make_roofline({model, gpu, 3});
  ASSERT_FALSE(tp3.has_value());
  EXPECT_EQ(tp3.error(), "tp 3 does not divide llama3-8b's num_attention_heads (32)");
  const auto tp0 = make_roofline({model, gpu, 0});
  ASSERT_FALSE(tp0.has_value());
  EXPECT_EQ(tp0.error(), "tensor parallelism must be at least 1");
  const auto tp32 = make_roofline({model, gpu, 32});
  EXPECT_TRUE(tp32.has_value());  // 8 KV heads, each on 4 GPUs
  auto slow = gpu;
  slow.memory_bandwidth_bytes_per_s = 0;
  const auto no_bandwidth = make_roofline({model, slow, 1});
  ASSERT_FALSE(no_bandwidth.has_value());
  EXPECT_EQ(no_bandwidth.error().rfind("h100: field 'memory_bandwidth_bytes_per_s'", 0), 0u);
  roofline_config negative{model, gpu, 1};
  negative.dequant_flops_per_value[3] = -1;
  const auto bad_flops = make_roofline(negative);
  ASSERT_FALSE(bad_flops.has_value());
  EXPECT_NE(bad_flops.error().find("level 3"), std::string::npos);
}

// q4o's q4 level: q4's 4 FLOPs a value plus 2 per outlier value of a key row (convert and
// multiply), spread over a token's K and V values; no channels is plain q4.
TEST(Roofline, Q4oDequantFlopsCountTheOutlierChannels) {
  EXPECT_DOUBLE_EQ(q4o_dequant_flops_per_value(4, 128), 4.03125);
  EXPECT_DOUBLE_EQ(q4o_dequant_flops_per_value(0, 128), default_dequant_flops_per_value[3]);
  EXPECT_DOUBLE_EQ(q4o_dequant_flops_per_value(16, 64), 4.25);
}

}  // namespace
}  // namespace kvscope
