// The portable q4o kernels. They define the results; the AVX2 ones must match them bit for bit.
#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>

#include "quant/kernels.hpp"
#include "quant/q4o.hpp"

namespace kvscope {
namespace {

void quantize_q4o(const q4o_tile& t, const fp16_bits* src, std::size_t src_stride,
                  std::uint8_t* payload, fp16_bits* scales, std::size_t out_stride,
                  std::uint8_t* side) {
  assert(valid_q4o_tile(t) && src_stride % 32 == 0 && out_stride % 32 == 0);
  const std::size_t d = t.head_dim, k = t.channels;
  std::array<float, q4o_max_channels> inv{};
  q4o_detail::write_side_header(t, src, src_stride, side, inv.data());
  const std::uint8_t* channels = side + k * sizeof(fp16_bits);
  auto* codes = reinterpret_cast<std::int8_t*>(side + k * (sizeof(fp16_bits) + 1));
  std::array<std::uint8_t, q4o_max_channels> stand_in{};
  q4o_detail::stand_ins(channels, k, stand_in.data());
  const quantize_fn q4 = scalar_kernels().quantize[ordinal(precision::q4)];
  std::array<fp16_bits, q4o_max_head_dim> row{};
  for (std::size_t r = 0; r < t.rows; ++r) {
    const fp16_bits* x = src + r * src_stride;
    std::memcpy(row.data(), x, d * sizeof(fp16_bits));
    for (std::size_t j = 0; j < k; ++j) row[channels[j]] = x[stand_in[j]];
    q4(row.data(), d / 32, payload + r * out_stride / 2, scales + r * out_stride / 16);
    for (std::size_t j = 0; j < k; ++j) {
      codes[j * t.rows + r] = q4o_detail::outlier_code(fp16_to_f32(x[channels[j]]), inv[j]);
    }
  }
}

void dequantize_q4o(const q4o_tile& t, const std::uint8_t* payload, const fp16_bits* scales,
                    std::size_t in_stride, const std::uint8_t* side, float* dst,
                    std::size_t dst_stride) {
  assert(valid_q4o_tile(t) && in_stride % 32 == 0);
  const std::size_t k = t.channels;
  const std::uint8_t* channels = side + k * sizeof(fp16_bits);
  const auto* codes = reinterpret_cast<const std::int8_t*>(channels + k);
  const dequantize_fn q4 = scalar_kernels().dequantize[ordinal(precision::q4)];
  for (std::size_t r = 0; r < t.rows; ++r) {
    q4(payload + r * in_stride / 2, scales + r * in_stride / 16, t.head_dim / 32, dst + r * dst_stride);
  }
  for (std::size_t j = 0; j < k; ++j) {
    fp16_bits d16;
    std::memcpy(&d16, side + j * sizeof(fp16_bits), sizeof d16);
    const float dj = fp16_to_f32(d16);
    for (std::size_t r = 0; r < t.rows; ++r) {
      dst[r * dst_stride + channels[j]] = static_cast<float>(codes[j * t.rows + r]) * dj;
    }
  }
}

constexpr q4o_kernel_set scalar_set{"scalar", quantize_q4o, dequantize_q4o};

}  // namespace

const q4o_kernel_set& scalar_q4o_kernels() noexcept { return scalar_set; }

}  // namespace kvscope
