// The portable q3 kernels. They define the results; the AVX2 ones must match them bit for bit.
#include <array>
#include <bit>
#include <cassert>
#include <cstring>

#include "quant/q3.hpp"

namespace kvscope {
namespace {

constexpr std::size_t group_bytes = 12;  // 8 bytes of low bits, 4 of high bits

float flip(float v, std::size_t channel) {
  return std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) ^ q3_sign_bits()[channel]);
}

// In place, unnormalized, over blocks of q3_rotation_size(d) channels. Stage by stage: a pair
// (j, j + len) never straddles a block, as 2 len divides the block size, which divides d.
void hadamard(float* y, std::size_t d) {
  const std::size_t n = q3_rotation_size(d);
  for (std::size_t len = 1; len < n; len *= 2) {
    for (std::size_t i = 0; i < d; i += 2 * len) {
      for (std::size_t j = i; j < i + len; ++j) {
        const float a = y[j], b = y[j + len];
        y[j] = a + b;
        y[j + len] = a - b;
      }
    }
  }
}

void pack_group(const float* y, float inv, const q3_table& table, std::uint8_t* out) {
  std::uint32_t high = 0;
  std::memset(out, 0, 8);
  for (std::size_t i = 0; i < 32; ++i) {
    const float u = y[i] * inv;
    std::uint32_t code = 0;
    for (float t : table.threshold) code += u > t ? 1u : 0u;
    out[i % 8] = static_cast<std::uint8_t>(out[i % 8] | ((code & 3u) << (2 * (i / 8))));
    high |= (code >> 2) << i;
  }
  for (std::size_t b = 0; b < 4; ++b) out[8 + b] = static_cast<std::uint8_t>(high >> (8 * b));
}

void unpack_group(const std::uint8_t* in, const float* centroid, float* y) {
  const std::uint32_t high = std::uint32_t{in[8]} | std::uint32_t{in[9]} << 8 |
                             std::uint32_t{in[10]} << 16 | std::uint32_t{in[11]} << 24;
  for (std::size_t i = 0; i < 32; ++i) {
    const std::uint32_t code = ((in[i % 8] >> (2 * (i / 8))) & 3u) | (((high >> i) & 1u) << 2);
    y[i] = centroid[code];
  }
}

void quantize_q3(const q3_tile& t, const fp16_bits* src, std::size_t src_stride,
                 std::uint8_t* payload, fp16_bits* scales, std::size_t out_stride,
                 std::uint8_t* side) {
  assert(valid_q3_tile(t) && src_stride % 32 == 0 && out_stride % t.head_dim == 0);
  const std::size_t d = t.head_dim, k = t.channels;
  std::array<float, q4o_max_channels> inv{};
  if (k > 0) q4o_detail::write_side_header(outlier_tile(t), src, src_stride, side, inv.data());
  const std::uint8_t* channels = side + k * sizeof(fp16_bits);
  auto* codes = reinterpret_cast<std::int8_t*>(side + k * (sizeof(fp16_bits) + 1));
  const q3_table& table = table_of(t.codebook);
  std::array<float, q4o_max_head_dim> y{};
  for (std::size_t r = 0; r < t.rows; ++r) {
    const fp16_bits* x = src + r * src_stride;
    for (std::size_t c = 0; c < d; ++c) y[c] = flip(fp16_to_f32(x[c]), c);
    for (std::size_t j = 0; j < k; ++j) {
      y[channels[j]] = 0.0f;  // kept apart at int8: out of the rotation and of the scale
      codes[j * t.rows + r] = q4o_detail::outlier_code(fp16_to_f32(x[channels[j]]), inv[j]);
    }
    hadamard(y.data(), d);
    std::array<float, 8> lanes{};
    for (std::size_t c = 0; c < d; ++c) lanes[c % 8] += y[c] * y[c];
    const fp16_bits scale = q3_detail::row_scale(lanes.data(), d);
    scales[r * out_stride / d] = scale;
    const float step = q3_detail::inverse_step(scale, d);
    std::uint8_t* row = payload + q3_payload_bytes(r * out_stride);
    for (std::size_t g = 0; g < d / 32; ++g) pack_group(y.data() + 32 * g, step, table, row + group_bytes * g);
  }
}

void dequantize_q3(const q3_tile& t, const std::uint8_t* payload, const fp16_bits* scales,
                   std::size_t in_stride, const std::uint8_t* side, float* dst,
                   std::size_t dst_stride) {
  assert(valid_q3_tile(t) && in_stride % t.head_dim == 0);
  const std::size_t d = t.head_dim;
  const q3_table& table = table_of(t.codebook);
  std::array<float, q4o_max_head_dim> y{};
  for (std::size_t r = 0; r < t.rows; ++r) {
    const float step = q3_detail::decode_step(scales[r * in_stride / d], d);
    std::array<float, 8> centroid{};
    for (std::size_t i = 0; i < 8; ++i) centroid[i] = table.centroid[i] * step;
    const std::uint8_t* row = payload + q3_payload_bytes(r * in_stride);
    for (std::size_t g = 0; g < d / 32; ++g) unpack_group(row + group_bytes * g, centroid.data(), y.data() + 32 * g);
    hadamard(y.data(), d);
    float* out = dst + r * dst_stride;
    for (std::size_t c = 0; c < d; ++c) out[c] = flip(y[c], c);
    if (t.channels > 0) restore_q4o_outliers(outlier_tile(t), side, r, out);
  }
}

constexpr q3_kernel_set scalar_set{"scalar", quantize_q3, dequantize_q3};

}  // namespace

const q3_kernel_set& scalar_q3_kernels() noexcept { return scalar_set; }

}  // namespace kvscope
