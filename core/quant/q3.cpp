#include "quant/q3.hpp"

#include <cmath>

namespace kvscope {
namespace {

// Max (1960), "Quantizing for minimum distortion", N = 8 for a unit Gaussian: the MSE-optimal
// levels (error 0.0345) and the optimal uniform ones (step 0.586, error 0.0374). TurboQuant uses
// the same Lloyd-Max levels on rotated vectors.
constexpr q3_table lloyd_max_table{
    {-2.1520f, -1.3440f, -0.7560f, -0.2451f, 0.2451f, 0.7560f, 1.3440f, 2.1520f},
    {-1.7480f, -1.0500f, -0.5006f, 0.0f, 0.5006f, 1.0500f, 1.7480f}};
constexpr q3_table uniform_table{
    {-2.0510f, -1.4650f, -0.8790f, -0.2930f, 0.2930f, 0.8790f, 1.4650f, 2.0510f},
    {-1.7580f, -1.1720f, -0.5860f, 0.0f, 0.5860f, 1.1720f, 1.7580f}};

// D's signs: splitmix64 from q3_sign_seed, one bit a channel, fixed so stored bytes never depend
// on the run.
struct sign_table {
  alignas(32) std::array<std::uint32_t, q4o_max_head_dim> bits{};
  constexpr sign_table() {
    std::uint64_t state = q3_sign_seed;
    for (std::size_t c = 0; c < bits.size(); c += 64) {
      state += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = state;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      for (std::size_t i = 0; i < 64; ++i) bits[c + i] = ((z >> i) & 1u) != 0 ? 0x80000000u : 0u;
    }
  }
};
constexpr sign_table signs;

}  // namespace

std::string_view tag(q3_codebook c) noexcept { return c == q3_codebook::uniform ? "uniform" : "lloyd-max"; }

std::optional<q3_codebook> parse_q3_codebook(std::string_view text) noexcept {
  if (text == "lloyd-max") return q3_codebook::lloyd_max;
  if (text == "uniform") return q3_codebook::uniform;
  return std::nullopt;
}

const q3_table& table_of(q3_codebook c) noexcept {
  return c == q3_codebook::uniform ? uniform_table : lloyd_max_table;
}

const std::uint32_t* q3_sign_bits() noexcept { return signs.bits.data(); }

const q3_kernel_set& best_q3_kernels() noexcept {
  static const q3_kernel_set& chosen = avx512_q3_kernels() != nullptr ? *avx512_q3_kernels()
                                        : avx2_q3_kernels() != nullptr   ? *avx2_q3_kernels()
                                                                           : scalar_q3_kernels();
  return chosen;
}

namespace q3_detail {

fp16_bits row_scale(const float* l, std::size_t head_dim) noexcept {
  const float sum = ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
  const auto n = static_cast<float>(q3_rotation_size(head_dim) * head_dim);  // exact: <= 2^16
  return f32_to_fp16(std::sqrt(sum / n));
}

float inverse_step(fp16_bits scale, std::size_t head_dim) noexcept {
  const float step = fp16_to_f32(scale) * std::sqrt(static_cast<float>(q3_rotation_size(head_dim)));
  return step != 0.0f ? 1.0f / step : 0.0f;
}

}  // namespace q3_detail

}  // namespace kvscope
