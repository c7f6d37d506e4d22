#include "memory/synthetic_kv.hpp"

#include <array>
#include <cassert>

namespace kvscope {
namespace {

constexpr std::uint64_t golden = 0x9E3779B97F4A7C15ull;

constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += golden;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

constexpr std::uint64_t combine(std::uint64_t h, std::uint64_t v) noexcept {
  return splitmix64(h ^ splitmix64(v));
}

// Sum of four uniforms in (0, 1), centred and scaled to unit variance (Irwin-Hall, n = 4).
float normal_from(std::uint64_t h) noexcept {
  float sum = 0.0f;
  for (int i = 0; i < 4; ++i) {
    sum += (static_cast<float>((h >> (16 * i)) & 0xFFFFu) + 0.5f) * (1.0f / 65536.0f);
  }
  return (sum - 2.0f) * 1.7320508f;  // sqrt(12 / 4)
}

std::uint64_t vector_hash(std::uint64_t seed, kv_part part, std::uint64_t stream, std::uint32_t pos,
                          std::uint32_t layer, std::uint32_t head) noexcept {
  std::uint64_t h = combine(splitmix64(seed), stream);
  h = combine(h, (std::uint64_t{pos} << 32) | layer);
  return combine(h, (std::uint64_t{head} << 8) | static_cast<std::uint64_t>(part));
}

// The j-th outlier pick of (layer, head); picks may repeat, which leaves fewer outliers.
std::uint32_t outlier_pick(std::uint64_t seed, std::uint32_t layer, std::uint32_t head,
                           std::uint32_t j, std::uint32_t head_dim) noexcept {
  const std::uint64_t h = combine(combine(splitmix64(seed ^ golden), layer), head);
  return static_cast<std::uint32_t>(combine(h, j) % head_dim);
}

}  // namespace

bool synthetic_kv::is_outlier(std::uint32_t layer, std::uint32_t head, std::uint32_t channel,
                              std::uint32_t head_dim) const noexcept {
  for (std::uint32_t j = 0; j < outliers_per_head; ++j) {
    if (outlier_pick(seed, layer, head, j, head_dim) == channel) return true;
  }
  return false;
}

float synthetic_kv::at(kv_part part, std::uint64_t stream, std::uint32_t pos, std::uint32_t layer,
                       std::uint32_t head, std::uint32_t channel, std::uint32_t head_dim) const noexcept {
  const float x = normal_from(combine(vector_hash(seed, part, stream, pos, layer, head), channel));
  const bool outlier = part == kv_part::key && is_outlier(layer, head, channel, head_dim);
  return outlier ? x * outlier_scale : x;
}

namespace {

// splitmix64(c) for the channel indices of common head sizes: combine(h, c) in fill() then
// costs one mix instead of two (fill is the hot loop of data-mode runs). Same values as combine.
constexpr std::size_t mixed_channels = 512;
const std::array<std::uint64_t, mixed_channels>& channel_mix() noexcept {
  static const auto table = [] {
    std::array<std::uint64_t, mixed_channels> t{};
    for (std::size_t c = 0; c < t.size(); ++c) t[c] = splitmix64(c);
    return t;
  }();
  return table;
}

}  // namespace

void synthetic_kv::fill(kv_part part, const model_shape& shape, std::uint64_t stream,
                        std::uint32_t pos, std::uint32_t layer,
                        std::span<float> out) const noexcept {
  assert(out.size() == shape.head_values());
  for (std::uint32_t head = 0; head < shape.kv_heads; ++head) {
    const std::uint64_t h = vector_hash(seed, part, stream, pos, layer, head);
    float* row = out.data() + std::size_t{head} * shape.head_dim;
    if (shape.head_dim <= mixed_channels) {
      const auto& mix = channel_mix();
      for (std::uint32_t c = 0; c < shape.head_dim; ++c) row[c] = normal_from(splitmix64(h ^ mix[c]));
    } else {
      for (std::uint32_t c = 0; c < shape.head_dim; ++c) row[c] = normal_from(combine(h, c));
    }
    if (part != kv_part::key) continue;
    for (std::uint32_t j = 0; j < outliers_per_head; ++j) {
      const std::uint32_t c = outlier_pick(seed, layer, head, j, shape.head_dim);
      bool repeated = false;
      for (std::uint32_t i = 0; i < j; ++i) {
        repeated = repeated || outlier_pick(seed, layer, head, i, shape.head_dim) == c;
      }
      if (!repeated) row[c] *= outlier_scale;
    }
  }
}

}  // namespace kvscope
