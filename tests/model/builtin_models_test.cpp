#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "memory/model_shape.hpp"
#include "model/builtin_models.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

model_config builtin(std::string_view name) {
  auto config = builtin_model(name);
  EXPECT_TRUE(config.has_value()) << name << ": " << config.error();
  return config ? *config : model_config{};
}

TEST(BuiltinModels, NamesInOrder) {
  const auto names = builtin_model_names();
  ASSERT_EQ(names.size(), 7u);
  EXPECT_EQ(names[0], "tiny");
  EXPECT_EQ(names[1], "llama3-8b");
  EXPECT_EQ(names[2], "llama3-70b");
  EXPECT_EQ(names[3], "qwen3-8b");
  EXPECT_EQ(names[4], "qwen3-14b");
  EXPECT_EQ(names[5], "qwen3-32b");
  EXPECT_EQ(names[6], "mistral-7b");
  for (const auto name : names) EXPECT_EQ(builtin(name).name, name);
}

// Exact counts from the published config.json files, checked against the sizes their publishers
// state (rounded as they round them).
TEST(BuiltinModels, ParameterCountsMatchPublishedSizes) {
  struct row {
    std::string_view name;
    std::uint64_t parameters;
    double published_billions;
    double rounding;  // half a unit of the published figure's last digit
  };
  const row rows[] = {
      {"llama3-8b", 8'030'261'248, 8.03, 0.005},     // meta-llama/Llama-3.1-8B: 8.03B
      {"llama3-70b", 70'553'706'496, 70.55, 0.005},  // meta-llama/Llama-3.1-70B: 70.55B
      {"qwen3-8b", 8'190'735'360, 8.19, 0.005},      // Qwen/Qwen3-8B: 8.2B, 8.19B on the hub
      {"qwen3-14b", 14'768'307'200, 14.8, 0.05},     // Qwen/Qwen3-14B: 14.8B
      {"qwen3-32b", 32'762'123'264, 32.8, 0.05},     // Qwen/Qwen3-32B: 32.8B
      {"mistral-7b", 7'248'023'552, 7.25, 0.005},    // mistralai/Mistral-7B-v0.3: 7.25B
      {"tiny", 9'643'264, 0.0096, 0.00005},          // synthetic
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(std::string(r.name));
    const auto c = builtin(r.name);
    EXPECT_EQ(parameter_count(c), r.parameters);
    EXPECT_EQ(active_parameter_count(c), r.parameters);  // all dense
    EXPECT_LE(std::abs(static_cast<double>(r.parameters) / 1e9 - r.published_billions), r.rounding);
    EXPECT_EQ(weight_bytes(c), 2 * r.parameters);  // all bfloat16
  }
}

TEST(BuiltinModels, QwenHasQkNormLlamaAndMistralDoNot) {
  EXPECT_TRUE(builtin("qwen3-8b").qk_norm);
  EXPECT_TRUE(builtin("qwen3-14b").qk_norm);
  EXPECT_TRUE(builtin("qwen3-32b").qk_norm);
  EXPECT_FALSE(builtin("llama3-8b").qk_norm);
  EXPECT_FALSE(builtin("mistral-7b").qk_norm);
  EXPECT_TRUE(builtin("tiny").tie_word_embeddings);
}

// The cache's presets and the configs must describe the same KV shape.
TEST(BuiltinModels, AgreeWithTheCachePresets) {
  for (const auto& preset : model_presets()) {
    SCOPED_TRACE(std::string(preset.name));
    const auto c = builtin(preset.name);
    EXPECT_EQ(c.num_hidden_layers, preset.shape.layers);
    EXPECT_EQ(c.num_key_value_heads, preset.shape.kv_heads);
    EXPECT_EQ(c.head_dim, preset.shape.head_dim);
    EXPECT_EQ(kv_values_per_token(c), preset.shape.values_per_token());
  }
  // llama3-8b: 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 128 KiB per token at fp16.
  EXPECT_EQ(kv_bytes_per_token(builtin("llama3-8b")), 128u * 1024);
}

// Mixture-of-experts counts, from the published configs of two MoE models.
TEST(BuiltinModels, MixtureOfExpertsCounts) {
  // Qwen/Qwen3-30B-A3B config.json (the fields that matter; published: 30.5B total, 3.3B
  // activated).
  const auto qwen = parse_model_config(R"({
    "architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe",
    "decoder_sparse_step": 1, "head_dim": 128, "hidden_size": 2048, "intermediate_size": 6144,
    "max_position_embeddings": 40960, "mlp_only_layers": [], "moe_intermediate_size": 768,
    "norm_topk_prob": true, "num_attention_heads": 32, "num_experts": 128,
    "num_experts_per_tok": 8, "num_hidden_layers": 48, "num_key_value_heads": 4,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 151936})",
                                       "qwen3-30b-a3b.json");
  ASSERT_TRUE(qwen.has_value()) << qwen.error();
  EXPECT_TRUE(qwen->is_moe());
  EXPECT_EQ(qwen->num_moe_layers, 48u);
  EXPECT_EQ(expert_parameter_count(*qwen), 3u * 2048 * 768);
  EXPECT_EQ(parameter_count(*qwen), 30'532'122'624u);
  EXPECT_EQ(active_parameter_count(*qwen), 3'353'032'704u);

  // mistralai/Mixtral-8x7B-v0.1 config.json (published: 46.7B total, 12.9B active).
  const auto mixtral = parse_model_config(R"({
    "architectures": ["MixtralForCausalLM"], "model_type": "mixtral", "hidden_size": 4096,
    "intermediate_size": 14336, "max_position_embeddings": 32768, "num_attention_heads": 32,
    "num_experts_per_tok": 2, "num_hidden_layers": 32, "num_key_value_heads": 8,
    "num_local_experts": 8, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
    "vocab_size": 32000})",
                                          "mixtral.json");
  ASSERT_TRUE(mixtral.has_value()) << mixtral.error();
  EXPECT_EQ(mixtral->moe_intermediate_size, 14336u);  // experts use intermediate_size
  EXPECT_EQ(parameter_count(*mixtral), 46'702'792'704u);
  EXPECT_EQ(active_parameter_count(*mixtral), 12'879'925'248u);

  // Dense layers listed in mlp_only_layers use intermediate_size instead of experts.
  const auto mixed = parse_model_config(R"({
    "model_type": "qwen3_moe", "hidden_size": 64, "intermediate_size": 128, "head_dim": 16,
    "moe_intermediate_size": 32, "num_attention_heads": 4, "num_key_value_heads": 2,
    "num_experts": 4, "num_experts_per_tok": 2, "num_hidden_layers": 4,
    "mlp_only_layers": [0], "decoder_sparse_step": 1, "vocab_size": 100,
    "torch_dtype": "bfloat16"})",
                                        "mixed.json");
  ASSERT_TRUE(mixed.has_value()) << mixed.error();
  EXPECT_EQ(mixed->num_moe_layers, 3u);
  // One dense layer against one MoE layer: 3 x 64 x 128 against 4 experts of 3 x 64 x 32 plus
  // a 64 x 4 router.
  const std::uint64_t attention = 64 * 64 + 2 * 64 * 32 + 64 * 64 + 2 * 16 + 2 * 64;
  const std::uint64_t expected =
      attention * 4 + 3 * 64 * 128 + 3 * (4 * 3 * 64 * 32 + 64 * 4) + 2 * 100 * 64 + 64;
  EXPECT_EQ(parameter_count(*mixed), expected);
}

TEST(BuiltinModels, MoeFieldErrorsAreNamed) {
  const std::string base = R"({"hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 100,
    "torch_dtype": "bfloat16", )";
  const auto error = [&](const std::string& tail) {
    const auto c = parse_model_config(base + tail, "moe.json");
    EXPECT_FALSE(c.has_value());
    return c ? std::string() : c.error();
  };
  EXPECT_EQ(error(R"("num_experts": 4})"), "moe.json: field 'num_experts_per_tok': missing");
  EXPECT_EQ(error(R"("num_experts": 4, "num_experts_per_tok": 5})"),
            "moe.json: field 'num_experts_per_tok': must be at most the number of experts (4), "
            "got 5");
  EXPECT_EQ(error(R"("num_experts": 4, "num_experts_per_tok": 1, "mlp_only_layers": [2]})"),
            "moe.json: field 'mlp_only_layers': expected layer indices in 0..1, got 2");
  EXPECT_EQ(error(R"("num_experts": 4, "num_experts_per_tok": 1,
                     "shared_expert_intermediate_size": 64})"),
            "moe.json: field 'shared_expert_intermediate_size': shared experts (Qwen2-MoE) are "
            "not modelled");
}

TEST(BuiltinModels, ResolveTakesANameOrAJsonPath) {
  EXPECT_EQ(resolve_model("qwen3-8b")->num_hidden_layers, 36u);

  test::temp_dir dir;
  const auto path = dir.file("custom.json");
  test::write_text(path, R"({"hidden_size": 256, "intermediate_size": 512,
    "num_attention_heads": 4, "num_hidden_layers": 3, "vocab_size": 100,
    "torch_dtype": "float16"})");
  const auto custom = resolve_model(path);
  ASSERT_TRUE(custom.has_value()) << custom.error();
  EXPECT_EQ(custom->name, "custom");
  EXPECT_EQ(custom->num_hidden_layers, 3u);

  const auto unknown = resolve_model("gpt-5");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error(),
            "unknown model 'gpt-5' (built-in: tiny, llama3-8b, llama3-70b, qwen3-8b, qwen3-14b, qwen3-32b, "
            "mistral-7b; or a config.json path ending in .json)");
  const auto absent = resolve_model(dir.file("absent.json"));
  ASSERT_FALSE(absent.has_value());
  EXPECT_NE(absent.error().find("absent.json: cannot open file"), std::string::npos);
}

}  // namespace
}  // namespace kvscope
