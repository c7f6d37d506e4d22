#include <gtest/gtest.h>

#include <string>

#include "model/model_config.hpp"
#include "model_test_support.hpp"
#include "temp_dir.hpp"

namespace kvscope {
namespace {

// A complete Llama-style config; tests swap single lines to make it wrong.
const std::string small_llama = R"({
  "architectures": ["LlamaForCausalLM"],
  "model_type": "llama",
  "hidden_size": 512,
  "intermediate_size": 1024,
  "num_attention_heads": 8,
  "num_hidden_layers": 4,
  "num_key_value_heads": 2,
  "vocab_size": 1000,
  "max_position_embeddings": 2048,
  "rope_scaling": {"rope_type": "llama3", "factor": 8.0},
  "some_future_key": [1, 2, {"x": null}],
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16"
})";

using test::replaced;

std::string model_parse_error(const std::string& text) {
  return test::parse_error(parse_model_config, text, "llama.json");
}

TEST(ModelConfig, ReadsFieldsAndIgnoresUnknownKeys) {
  const auto c = parse_model_config(small_llama, "dir/small.json");
  ASSERT_TRUE(c.has_value()) << c.error();
  EXPECT_EQ(c->name, "small");
  EXPECT_EQ(c->model_type, "llama");
  EXPECT_EQ(c->num_hidden_layers, 4u);
  EXPECT_EQ(c->num_attention_heads, 8u);
  EXPECT_EQ(c->num_key_value_heads, 2u);
  EXPECT_EQ(c->head_dim, 64u);  // hidden_size / num_attention_heads
  EXPECT_EQ(c->max_position_embeddings, 2048u);
  EXPECT_EQ(c->dtype_bytes, 2u);
  EXPECT_FALSE(c->is_moe());
  EXPECT_FALSE(c->qk_norm);
  EXPECT_FALSE(c->qkv_bias);
}

TEST(ModelConfig, ParameterCountByHand) {
  const auto c = parse_model_config(small_llama, "small.json");
  ASSERT_TRUE(c.has_value()) << c.error();
  // Per layer: q 512x512 + k,v 2x512x128 + o 512x512 = 655,360; MLP 3x512x1024 = 1,572,864;
  // norms 2x512. Four layers, embeddings and lm_head 1000x512 each, final norm 512.
  const std::uint64_t layer = 655'360 + 1'572'864 + 1'024;
  const std::uint64_t expected = 4 * layer + 2 * 512'000 + 512;
  EXPECT_EQ(parameter_count(*c), expected);
  EXPECT_EQ(active_parameter_count(*c), expected);
  EXPECT_EQ(expert_parameter_count(*c), 0u);
  EXPECT_EQ(weight_bytes(*c), 2 * expected);
  EXPECT_EQ(kv_values_per_token(*c), 2u * 4 * 2 * 64);
  EXPECT_EQ(kv_bytes_per_token(*c), 2u * 2 * 4 * 2 * 64);

  auto tied = *parse_model_config(
      replaced(small_llama, R"("tie_word_embeddings": false)", R"("tie_word_embeddings": true)"),
      "tied.json");
  EXPECT_EQ(parameter_count(tied), expected - 512'000);
}

TEST(ModelConfig, DefaultsForOptionalFields) {
  std::string text = replaced(small_llama, R"("num_key_value_heads": 2,)", "");
  text = replaced(text, R"("tie_word_embeddings": false,)", "");
  text = replaced(text, R"("max_position_embeddings": 2048,)", "");
  const auto c = parse_model_config(text, "mha.json");
  ASSERT_TRUE(c.has_value()) << c.error();
  EXPECT_EQ(c->num_key_value_heads, 8u);  // = num_attention_heads
  EXPECT_FALSE(c->tie_word_embeddings);
  EXPECT_EQ(c->max_position_embeddings, 0u);

  // An explicit head_dim wins over hidden_size / heads (Qwen3 and Mistral-Nemo state one).
  const auto explicit_dim = parse_model_config(
      replaced(small_llama, R"("vocab_size")", R"("head_dim": 128, "vocab_size")"), "dim.json");
  ASSERT_TRUE(explicit_dim.has_value()) << explicit_dim.error();
  EXPECT_EQ(explicit_dim->head_dim, 128u);

  // Null means "not set" in HF configs.
  const auto null_heads = parse_model_config(
      replaced(small_llama, R"("num_key_value_heads": 2)", R"("num_key_value_heads": null)"),
      "null.json");
  ASSERT_TRUE(null_heads.has_value()) << null_heads.error();
  EXPECT_EQ(null_heads->num_key_value_heads, 8u);
}

TEST(ModelConfig, DtypeSizes) {
  const auto fp32 = parse_model_config(
      replaced(small_llama, R"("torch_dtype": "bfloat16")", R"("torch_dtype": "float32")"),
      "a.json");
  ASSERT_TRUE(fp32.has_value()) << fp32.error();
  EXPECT_EQ(fp32->dtype_bytes, 4u);
  EXPECT_EQ(weight_bytes(*fp32), 4 * parameter_count(*fp32));
  const auto fp16 = parse_model_config(
      replaced(small_llama, R"("torch_dtype": "bfloat16")", R"("torch_dtype": "float16")"),
      "a.json");
  ASSERT_TRUE(fp16.has_value()) << fp16.error();
  EXPECT_EQ(fp16->dtype_bytes, 2u);
  // transformers 4.56+ writes "dtype" instead of "torch_dtype".
  const auto renamed = parse_model_config(
      replaced(small_llama, R"("torch_dtype": "bfloat16")", R"("dtype": "float32")"), "a.json");
  ASSERT_TRUE(renamed.has_value()) << renamed.error();
  EXPECT_EQ(renamed->dtype_bytes, 4u);
}

TEST(ModelConfig, MissingFieldIsNamed) {
  EXPECT_EQ(model_parse_error(replaced(small_llama, R"("hidden_size": 512,)", "")),
            "llama.json: field 'hidden_size': missing");
  EXPECT_EQ(model_parse_error(replaced(small_llama, R"("torch_dtype": "bfloat16")", R"("x": 1)")),
            "llama.json: field 'torch_dtype': missing");
  EXPECT_EQ(model_parse_error(replaced(small_llama, R"("vocab_size": 1000,)", R"("vocab_size": null,)")),
            "llama.json: field 'vocab_size': missing");
}

TEST(ModelConfig, WrongTypesAreNamed) {
  EXPECT_EQ(model_parse_error(replaced(small_llama, R"("num_key_value_heads": 2)",
                                 R"("num_key_value_heads": "2")")),
            "llama.json: field 'num_key_value_heads': expected a whole number in [1, 4096], got "
            "string \"2\"");
  EXPECT_EQ(
      model_parse_error(replaced(small_llama, R"("num_hidden_layers": 4)", R"("num_hidden_layers": -4)")),
      "llama.json: field 'num_hidden_layers': expected a whole number in [1, 4096], got number -4");
  EXPECT_EQ(
      model_parse_error(replaced(small_llama, R"("num_hidden_layers": 4)", R"("num_hidden_layers": 0)")),
      "llama.json: field 'num_hidden_layers': expected a whole number in [1, 4096], got number 0");
  EXPECT_NE(model_parse_error(replaced(small_llama, R"("hidden_size": 512)", R"("hidden_size": 512.5)"))
                .find("llama.json: field 'hidden_size': expected a whole number in [1, 1048576]"),
            std::string::npos);
  EXPECT_EQ(model_parse_error(replaced(small_llama, R"("tie_word_embeddings": false)",
                                 R"("tie_word_embeddings": "no")")),
            "llama.json: field 'tie_word_embeddings': expected true or false, got string \"no\"");
  EXPECT_EQ(model_parse_error(
                replaced(small_llama, R"("torch_dtype": "bfloat16")", R"("torch_dtype": "int4")")),
            "llama.json: field 'torch_dtype': unknown dtype 'int4' (expected bfloat16, float16 "
            "or float32)");
}

TEST(ModelConfig, InconsistentShapesAreNamed) {
  EXPECT_EQ(model_parse_error(replaced(small_llama, R"("num_key_value_heads": 2)",
                                 R"("num_key_value_heads": 3)")),
            "llama.json: field 'num_key_value_heads': must divide num_attention_heads (8), got 3");
  // 512 is not a multiple of 6 heads and no head_dim is given.
  EXPECT_EQ(model_parse_error(replaced(small_llama, R"("num_attention_heads": 8)",
                                 R"("num_attention_heads": 6)")),
            "llama.json: field 'head_dim': missing, and hidden_size 512 is not a multiple of "
            "num_attention_heads 6");
}

TEST(ModelConfig, NotJsonOrNotAnObject) {
  const auto garbage = model_parse_error("this is not json");
  EXPECT_EQ(garbage.rfind("llama.json: invalid JSON: parse error at line 1", 0), 0u) << garbage;
  const auto truncated = model_parse_error(small_llama.substr(0, 60));
  EXPECT_EQ(truncated.rfind("llama.json: invalid JSON", 0), 0u) << truncated;
  EXPECT_EQ(model_parse_error("[1, 2]"), "llama.json: expected a JSON object, got array");
  EXPECT_EQ(model_parse_error("").rfind("llama.json: invalid JSON", 0), 0u);
}

TEST(ModelConfig, SizesThatOverflowAreErrors) {
  // Every field within its range, the whole beyond 64 bits: 65,536 experts of a 2^22-wide MLP
  // over a 2^20 hidden size in 4,096 layers are 3 x 2^70 parameters.
  std::string text = replaced(small_llama, R"("hidden_size": 512)",
                              R"("hidden_size": 1048576, "head_dim": 128, "num_local_experts": 65536,
                                 "num_experts_per_tok": 2)");
  text = replaced(text, R"("intermediate_size": 1024)", R"("intermediate_size": 4194304)");
  text = replaced(text, R"("num_hidden_layers": 4)", R"("num_hidden_layers": 4096)");
  const auto error = model_parse_error(text);
  EXPECT_NE(error.find("does not fit in 64 bits"), std::string::npos) << error;
  EXPECT_EQ(error.rfind("llama.json: field '", 0), 0u) << error;
  // Integers beyond uint64 are not integers to nlohmann: still a named error.
  EXPECT_NE(model_parse_error(replaced(small_llama, R"("vocab_size": 1000)",
                                 R"("vocab_size": 99999999999999999999999)"))
                .find("field 'vocab_size'"),
            std::string::npos);
}

// Counts beyond any model are refused with the field and the range, before anything is computed
// from them: 2^31 layers made `2 * layers` 0 in 32 bits (a division by zero in the pool), 2^31 + 2
// made it 4 (a silent 2-layer model), and 2^63 layers would loop for ever counting MoE layers.
TEST(ModelConfig, CountsBeyondAnyModelAreRefused) {
  EXPECT_EQ(model_parse_error(replaced(small_llama, R"("num_hidden_layers": 4)",
                                 R"("num_hidden_layers": 2147483648)")),
            "llama.json: field 'num_hidden_layers': expected a whole number in [1, 4096], got "
            "number 2147483648");
  EXPECT_NE(model_parse_error(replaced(small_llama, R"("num_hidden_layers": 4)",
                                 R"("num_hidden_layers": 2147483650)"))
                .find("field 'num_hidden_layers'"),
            std::string::npos);
  const std::pair<const char*, const char*> beyond[] = {
      {R"("num_attention_heads": 8)", R"("num_attention_heads": 8192)"},
      {R"("num_key_value_heads": 2)", R"("num_key_value_heads": 4294967296)"},
      {R"("hidden_size": 512)", R"("hidden_size": 1073741824)"},
      {R"("intermediate_size": 1024)", R"("intermediate_size": 9223372036854775808)"},
      {R"("vocab_size": 1000)", R"("vocab_size": 4294967296)"},
      {R"("max_position_embeddings": 2048)", R"("max_position_embeddings": 4294967296)"},
      {R"("hidden_size": 512)", R"("hidden_size": 512, "head_dim": 65536)"},
      {R"("hidden_size": 512)", R"("hidden_size": 512, "num_local_experts": 9223372036854775808)"},
  };
  for (const auto& [from, to] : beyond) {
    const auto error = model_parse_error(replaced(small_llama, from, to));
    EXPECT_NE(error.find("expected a whole number in ["), std::string::npos) << error;
  }
  // A head_dim derived from hidden_size / num_attention_heads is held to the same range.
  const auto derived = model_parse_error(replaced(small_llama, R"("hidden_size": 512)", R"("hidden_size": 65536)"));
  EXPECT_EQ(derived.rfind("llama.json: field 'head_dim': ", 0), 0u) << derived;
}

TEST(ModelConfig, ReadsFilesAndNamesConfigJsonAfterItsFolder) {
  test::temp_dir dir;
  std::filesystem::create_directories(dir.path() / "Small-Llama");
  const auto path = dir.path() / "Small-Llama" / "config.json";
  test::write_text(path.string(), small_llama);
  const auto c = read_model_config(path);
  ASSERT_TRUE(c.has_value()) << c.error();
  EXPECT_EQ(c->name, "Small-Llama");

  const auto other = dir.file("mine.json");
  test::write_text(other, replaced(small_llama, R"("hidden_size": 512,)", ""));
  const auto bad = read_model_config(other);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error(), other + ": field 'hidden_size': missing");

  const auto missing = read_model_config(dir.path() / "absent.json");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error(), (dir.path() / "absent.json").string() + ": cannot open file");
}

// Found by fuzzing: a number past a double threw out of the parser (and ended the program).
TEST(ModelConfig, ANumberPastADoubleIsAnErrorNamingTheSource) {
  const auto c = parse_model_config(R"({"rms_norm_eps": 1e606})", "c.json");
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().rfind("c.json: invalid JSON: ", 0), 0u) << c.error();
  EXPECT_NE(c.error().find("1e606"), std::string::npos) << c.error();
}

}  // namespace
}  // namespace kvscope
