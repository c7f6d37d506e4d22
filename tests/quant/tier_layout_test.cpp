#include <gtest/gtest.h>

#include "quant/tier_layout.hpp"

namespace kvscope {
namespace {

TEST(TierLayout, Llama3BlockBytesAndFactors) {
  const std::uint64_t elements = 16ull * 32 * 8 * 128 * 2;  // one block of llama3-8b
  const tier_layout fp16 = block_layout(precision::fp16, elements);
  EXPECT_EQ(fp16.payload_bytes, 2u << 20);
  EXPECT_EQ(fp16.scale_bytes, 0u);
  EXPECT_EQ(fp16.effective_factor, 1.0);
  const tier_layout q8 = block_layout(precision::q8, elements);
  EXPECT_EQ(q8.payload_bytes, 1u << 20);
  EXPECT_EQ(q8.scale_bytes, 64u << 10);
  EXPECT_EQ(q8.slots_per_frame, 2u);
  EXPECT_EQ(q8.nominal_factor, 0.5);
  EXPECT_EQ(q8.effective_factor, 0.53125);
  const tier_layout fp8 = block_layout(precision::fp8, elements);
  EXPECT_EQ(fp8.total_bytes(), q8.total_bytes());
  const tier_layout q4 = block_layout(precision::q4, elements);
  EXPECT_EQ(q4.payload_bytes, 512u << 10);
  EXPECT_EQ(q4.scale_bytes, 128u << 10);
  EXPECT_EQ(q4.slots_per_frame, 4u);
  EXPECT_EQ(q4.nominal_factor, 0.25);
  EXPECT_EQ(q4.effective_factor, 0.3125);
  for (precision p : all_precisions) {
    EXPECT_EQ(block_layout(p, elements).nominal_factor, nominal_factor(p));
    // As many as fit: q3's five leave 4 of every 64 bytes of the frame empty.
    EXPECT_LE(block_layout(p, elements).payload_bytes * slots_per_frame(p), fp16.payload_bytes);
    EXPECT_GT(block_layout(p, elements).payload_bytes * (slots_per_frame(p) + 1), fp16.payload_bytes);
  }
}

}  // namespace
}  // namespace kvscope
