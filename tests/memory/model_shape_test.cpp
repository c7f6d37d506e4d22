#include <gtest/gtest.h>

#include "memory/model_shape.hpp"

namespace kvscope {
namespace {

TEST(ModelShape, Presets) {
  EXPECT_EQ(find_model_shape("tiny"), (model_shape{2, 2, 64}));
  EXPECT_EQ(find_model_shape("llama3-8b"), (model_shape{32, 8, 128}));
  EXPECT_EQ(find_model_shape("qwen3-8b"), (model_shape{36, 8, 128}));
  EXPECT_EQ(find_model_shape("llama3-70b"), (model_shape{80, 8, 128}));
  EXPECT_FALSE(find_model_shape("gpt-5").has_value());
  EXPECT_EQ(find_model_shape("qwen3-14b"), (model_shape{40, 8, 128}));
  ASSERT_EQ(model_presets().size(), 7u);
  EXPECT_EQ(model_presets()[0].name, "tiny");
  // llama3-8b: 16 tokens x 32 layers x 8 heads x 128 x 2 (K, V) x 2 B = 2 MiB per fp16 block.
  EXPECT_EQ(16 * find_model_shape("llama3-8b")->values_per_token() * 2, 2u << 20);
  EXPECT_EQ(find_model_shape("tiny")->head_values(), 128u);
  EXPECT_EQ(find_model_shape("llama3-8b")->frame_bytes(16), 2u << 20);
}

// `2 * layers` was computed in 32 bits: 2^31 layers gave 0 values per token, 2^31 + 2 gave 4.
TEST(ModelShape, SizesAreComputedIn64Bits) {
  const model_shape big{(1u << 31) + 2, 1, 32};
  EXPECT_EQ(big.values_per_token(), ((std::uint64_t{1} << 32) + 4) * 32);
  EXPECT_EQ(big.frame_bytes(16), big.values_per_token() * 16 * 2);
}

}  // namespace
}  // namespace kvscope
