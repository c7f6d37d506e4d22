#include "quant/q4o.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>

namespace kvscope {

std::string_view tag(q4_format f) noexcept { return f == q4_format::q4o ? "q4o" : "q4"; }

std::optional<q4_format> parse_q4_format(std::string_view text) noexcept {
  if (text == "q4") return q4_format::q4;
  if (text == "q4o") return q4_format::q4o;
  return std::nullopt;
}

const q4o_kernel_set& best_q4o_kernels() noexcept {
  static const q4o_kernel_set& chosen = avx512_q4o_kernels() != nullptr ? *avx512_q4o_kernels()
                                        : avx2_q4o_kernels() != nullptr   ? *avx2_q4o_kernels()
                                                                           : scalar_q4o_kernels();
  return chosen;
}

void restore_q4o_outliers(const q4o_tile& tile, const std::uint8_t* side, std::size_t row,
                          float* dst) noexcept {
  assert(row < tile.rows);
  const std::size_t k = tile.channels;
  const std::uint8_t* channels = side + k * sizeof(fp16_bits);
  const auto* codes = reinterpret_cast<const std::int8_t*>(channels + k);
  for (std::size_t j = 0; j < k; ++j) {
    fp16_bits d16;
    std::memcpy(&d16, side + j * sizeof(fp16_bits), sizeof d16);
    dst[channels[j]] = static_cast<float>(codes[j * tile.rows + row]) * fp16_to_f32(d16);
  }
}

namespace q4o_detail {

// One pass keeping the best k in descending order. A channel's key is its magnitude above the
// inverted index, so keys are distinct and a tie in magnitude goes to the lower channel.
void pick_channels(const std::uint16_t* magnitude, std::size_t head_dim, std::size_t k,
                   std::uint8_t* channels) noexcept {
  assert(k <= q4o_max_channels && k <= head_dim && head_dim <= q4o_max_head_dim);
  if (k == 0) return;
  std::array<std::uint32_t, q4o_max_channels> best{};  // 0 is below every key
  for (std::size_t c = 0; c < head_dim; ++c) {
    const std::uint32_t key = (std::uint32_t{magnitude[c]} << 8) | (255u - static_cast<std::uint32_t>(c));
    if (key <= best[k - 1]) continue;
    std::size_t i = k - 1;
    for (; i > 0 && best[i - 1] < key; --i) best[i] = best[i - 1];
    best[i] = key;
  }
  for (std::size_t j = 0; j < k; ++j) channels[j] = static_cast<std::uint8_t>(255u - (best[j] & 0xFFu));
  std::sort(channels, channels + k);
}

void stand_ins(const std::uint8_t* channels, std::size_t k, std::uint8_t* stand_in) noexcept {
  const auto outlier = [&](std::size_t c) { return std::find(channels, channels + k, c) != channels + k; };
  for (std::size_t j = 0; j < k; ++j) {
    std::size_t c = channels[j] & ~std::size_t{31};
    while (outlier(c)) ++c;  // k <= 16 < 32: the group has a kept channel
    stand_in[j] = static_cast<std::uint8_t>(c);
  }
}

void write_side_header(const q4o_tile& t, const fp16_bits* src, std::size_t src_stride,
                       std::uint8_t* side, float* inv) noexcept {
  std::array<std::uint16_t, q4o_max_head_dim> magnitude{};
  for (std::size_t r = 0; r < t.rows; ++r) {
    for (std::size_t c = 0; c < t.head_dim; ++c) {
      magnitude[c] = std::max(magnitude[c], static_cast<std::uint16_t>(src[r * src_stride + c] & 0x7FFF));
    }
  }
  std::uint8_t* channels = side + t.channels * sizeof(fp16_bits);
  pick_channels(magnitude.data(), t.head_dim, t.channels, channels);
  for (std::size_t j = 0; j < t.channels; ++j) {
    const fp16_bits d16 = f32_to_fp16(fp16_to_f32(magnitude[channels[j]]) / 127.0f);
    const float dj = fp16_to_f32(d16);
    inv[j] = dj != 0.0f ? 1.0f / dj : 0.0f;
    std::memcpy(side + j * sizeof(fp16_bits), &d16, sizeof d16);
  }
}

std::int8_t outlier_code(float x, float inv) noexcept {
  constexpr float magic = 12582912.0f;  // round to nearest even for |v| <= 2^22, as the kernels
  const float v = std::clamp(x * inv, -127.0f, 127.0f);
  return static_cast<std::int8_t>((v + magic) - magic);
}

}  // namespace q4o_detail

}  // namespace kvscope
