// The portable q3 kernels. They define the results; the AVX2 ones must match them bit for bit.
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>

#include "quant/q3.hpp"

namespace kvscope {
namespace {

constexpr std::size_t group_bytes = 12;  // 32 codes of 3 bits

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

// Value i = 8 s + j of a group has its code at bit 12 j + 3 s of the group's 96 bits (q3.hpp).
std::size_t code_bit(std::size_t i) { return 12 * (i % 8) + 3 * (i / 8); }

void pack_group(const float* y, float inv, const q3_table& table, std::uint8_t* out) {
  std::memset(out, 0, group_bytes);
  for (std::size_t i = 0; i < 32; ++i) {
    const float u = y[i] * inv;
    std::uint32_t m = 0;  // thresholds below |u| on its side of zero
    for (std::size_t j = 4; j < 7; ++j) m += std::fabs(u) > table.threshold[j] ? 1u : 0u;
    const std::uint32_t code = std::signbit(u) ? 3 - m : 4 + m;
    const std::size_t bit = code_bit(i);
    const std::uint32_t v = code << (bit % 8);  // within 2 bytes, and the last code in byte 11
    out[bit / 8] = static_cast<std::uint8_t>(out[bit / 8] | v);
    if (v > 0xFF) out[bit / 8 + 1] = static_cast<std::uint8_t>(out[bit / 8 + 1] | (v >> 8));
  }
}

void unpack_group(const std::uint8_t* in, const float* centroid, float* y) {
  for (std::size_t i = 0; i < 32; ++i) {
    const std::size_t bit = code_bit(i), byte = bit / 8;
    const std::uint32_t two = in[byte] | (byte + 1 < group_bytes ? std::uint32_t{in[byte + 1]} << 8 : 0u);
    y[i] = centroid[(two >> (bit % 8)) & 7u];
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
