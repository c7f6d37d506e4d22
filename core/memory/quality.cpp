#include "memory/quality.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

#include "quant/kernels.hpp"
#include "quant/tier_layout.hpp"
#include "util/parallel.hpp"

namespace kvscope {
namespace {

void accumulate(error_sum& sum, std::span<const float> measured, std::span<const float> original) {
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const double d = static_cast<double>(measured[i]) - original[i];
    sum.squared_error += d * d;
    sum.squared_reference += static_cast<double>(original[i]) * original[i];
  }
  sum.values += measured.size();
}

// Online softmax over a stream of keys for one head (flash-decoding style), in double.
struct attention_head {
  double max_score = -std::numeric_limits<double>::infinity();
  double denominator = 0;
  std::vector<double> output;

  void add(std::span<const float> q, const float* k, const float* v, double scale) {
    double score = 0;
    for (std::size_t c = 0; c < q.size(); ++c) score += static_cast<double>(q[c]) * k[c];
    score *= scale;
    const double new_max = std::max(max_score, score);
    const double old_weight = std::exp(max_score - new_max);
    const double weight = std::exp(score - new_max);
    denominator = denominator * old_weight + weight;
    for (std::size_t c = 0; c < output.size(); ++c) output[c] = output[c] * old_weight + weight * v[c];
    max_score = new_max;
  }
  double result(std::size_t c) const { return output[c] / denominator; }
};

// Adds the error of every head's attention output (paged vs exact) to `sum`.
void add_output_error(const std::vector<attention_head>& paged,
                      const std::vector<attention_head>& exact, error_sum& sum) {
  for (std::size_t h = 0; h < paged.size(); ++h) {
    for (std::size_t c = 0; c < paged[h].output.size(); ++c) {
      const double d = paged[h].result(c) - exact[h].result(c);
      sum.squared_error += d * d;
      sum.squared_reference += exact[h].result(c) * exact[h].result(c);
      ++sum.values;
    }
  }
}

// Scratch for one block of one layer, K and V in the cache's token-major order (rows x hv).
struct block_codec {
  std::vector<fp16_bits> halves;
  std::vector<std::uint8_t> payload;
  std::vector<fp16_bits> scales;
  std::vector<std::uint8_t> side;

  block_codec(const model_shape& shape, std::uint32_t block_size, std::size_t channels)
      : halves(block_size * shape.head_values()),
        payload(halves.size() * 2),
        scales(halves.size() / group_size * 2),
        side(q4o_side_bytes(block_size, channels)) {}

  // `rows` head vectors of one part to fp16, stored in `f` and read back into `out`. Keys in
  // q4o, and q3, go tile by tile (one per kv head, rows `hv` apart); the rest group by group.
  void round_trip(const stored_format& f, const model_shape& shape, kv_part part,
                  std::uint32_t rows, const float* original, float* out) {
    const std::size_t hv = shape.head_values();
    const std::size_t values = rows * hv;
    best_kernels().f32_to_fp16(original, halves.data(), values);
    if (f.q3 || f.level == precision::q3) {
      const q3_kernel_set& k = best_q3_kernels();
      const q3_tile tile{rows, shape.head_dim, part == kv_part::key ? f.q4o_channels : 0,
                         f.q3.value_or(q3_codebook::lloyd_max)};
      for (std::size_t at = 0; at < hv; at += shape.head_dim) {
        std::uint8_t* codes = payload.data() + q3_payload_bytes(at);
        k.quantize(tile, halves.data() + at, hv, codes, scales.data() + at / shape.head_dim, hv, side.data());
        k.dequantize(tile, codes, scales.data() + at / shape.head_dim, hv, side.data(), out + at, hv);
      }
      return;
    }
    if (f.level != precision::q4 || f.format != q4_format::q4o || part != kv_part::key) {
      quantize(f.level, halves.data(), values / group_size, payload.data(), scales.data());
      dequantize(f.level, payload.data(), scales.data(), values / group_size, out);
      return;
    }
    const q4o_kernel_set& k = best_q4o_kernels();
    const q4o_tile tile{rows, shape.head_dim, f.q4o_channels};
    for (std::size_t at = 0; at < hv; at += shape.head_dim) {
      k.quantize(tile, halves.data() + at, hv, payload.data() + at / 2, scales.data() + at / 16, hv,
                 side.data());
      k.dequantize(tile, payload.data() + at / 2, scales.data() + at / 16, hv, side.data(), out + at, hv);
    }
  }
};

}  // namespace

double error_sum::relative() const noexcept {
  if (values == 0) return std::numeric_limits<double>::quiet_NaN();
  return squared_reference > 0 ? std::sqrt(squared_error / squared_reference) : 0.0;
}

error_sum& error_sum::operator+=(const error_sum& other) noexcept {
  squared_error += other.squared_error;
  squared_reference += other.squared_reference;
  values += other.values;
  return *this;
}

expected<void, cache_error> write_synthetic(paged_cache& cache, const synthetic_kv& data,
                                            sequence_id seq, std::uint64_t stream,
                                            std::uint32_t from, std::uint32_t to) {
  const model_shape& shape = cache.shape();
  std::vector<float> k(shape.head_values());
  std::vector<float> v(shape.head_values());
  for (std::uint32_t pos = from; pos < to; ++pos) {
    for (std::uint32_t layer = 0; layer < shape.layers; ++layer) {
      data.fill(kv_part::key, shape, stream, pos, layer, k);
      data.fill(kv_part::value, shape, stream, pos, layer, v);
      if (auto ok = cache.write(seq, layer, pos, k, v); !ok) return ok;
    }
  }
  return {};
}

std::array<error_sum, kv_level_count> measure_kernel_error(const synthetic_kv& data, const model_shape& shape,
                                              std::uint32_t tokens, std::uint64_t stream) {
  const std::size_t n = shape.head_values();
  std::vector<float> original(n);
  std::vector<fp16_bits> halves(n);
  std::vector<std::uint8_t> payload(n * 2);
  std::vector<fp16_bits> scales(n / group_size * 2);
  std::vector<float> back(n);
  std::array<error_sum, kv_level_count> sums{};
  for (std::uint32_t pos = 0; pos < tokens; ++pos) {
    for (std::uint32_t layer = 0; layer < shape.layers; ++layer) {
      for (kv_part part : {kv_part::key, kv_part::value}) {
        data.fill(part, shape, stream, pos, layer, original);
        best_kernels().f32_to_fp16(original.data(), halves.data(), n);
        for (precision p : group_levels) {  // q3 is measured by tiles, not here
          quantize(p, halves.data(), n / group_size, payload.data(), scales.data());
          dequantize(p, payload.data(), scales.data(), n / group_size, back.data());
          accumulate(sums[ordinal(p)], back, original);
        }
      }
    }
  }
  return sums;
}

std::array<error_sum, kv_level_count> measure_cache_error(const paged_cache& cache, const synthetic_kv& data,
                                             std::span<const sequence_stream> sequences,
                                             std::uint32_t max_blocks) {
  struct item {
    sequence_stream seq;
    std::uint32_t index;  // table index
  };
  std::vector<item> items;
  for (const auto& s : sequences) {
    const auto table = cache.block_table(s.seq);
    if (!table) continue;
    for (std::uint32_t i = 0; i < table->size(); ++i) items.push_back({s, i});
  }
  if (max_blocks != 0 && items.size() > max_blocks) {  // an even spread, the same every time
    std::vector<item> spread;
    for (std::size_t i = 0; i < max_blocks; ++i) spread.push_back(items[i * items.size() / max_blocks]);
    items = std::move(spread);
  }
  const model_shape& shape = cache.shape();
  const std::size_t hv = shape.head_values();
  std::vector<error_sum> partial(items.size());
  std::vector<precision> tiers(items.size());
  parallel_chunks(std::size_t{0}, items.size(), std::size_t{1}, [&](std::size_t begin, std::size_t end) {
    std::vector<float> k(cache.block_size() * hv), v(k.size()), original(hv);
    for (std::size_t i = begin; i != end; ++i) {
      const item& it = items[i];
      tiers[i] = cache.pool().tier((*cache.block_table(it.seq.seq))[it.index]);
      const std::uint32_t first_pos = (*cache.first_block(it.seq.seq) + it.index) * cache.block_size();
      for (std::uint32_t layer = 0; layer < shape.layers; ++layer) {
        const auto tokens = cache.read_block(it.seq.seq, it.index, layer, k, v);
        if (!tokens) break;
        for (std::uint32_t t = 0; t < *tokens; ++t) {
          data.fill(kv_part::key, shape, it.seq.stream, first_pos + t, layer, original);
          accumulate(partial[i], std::span<const float>(k).subspan(t * hv, hv), original);
          data.fill(kv_part::value, shape, it.seq.stream, first_pos + t, layer, original);
          accumulate(partial[i], std::span<const float>(v).subspan(t * hv, hv), original);
        }
      }
    }
  });
  std::array<error_sum, kv_level_count> sums{};
  for (std::size_t i = 0; i < items.size(); ++i) sums[ordinal(tiers[i])] += partial[i];
  return sums;
}

expected<error_sum, cache_error> measure_attention_error(const paged_cache& cache,
                                                         const synthetic_kv& data,
                                                         sequence_stream sequence) {
  const auto table = cache.block_table(sequence.seq);
  if (!table) return unexpected{table.error()};
  const model_shape& shape = cache.shape();
  const std::size_t hv = shape.head_values();
  const std::uint32_t length = *cache.length(sequence.seq);
  const std::uint32_t first_pos = *cache.first_block(sequence.seq) * cache.block_size();
  const double scale = 1.0 / std::sqrt(static_cast<double>(shape.head_dim));
  std::vector<error_sum> per_layer(shape.layers);
  parallel_chunks(std::uint32_t{0}, shape.layers, std::uint32_t{1}, [&](std::uint32_t begin, std::uint32_t end) {
    std::vector<float> k(cache.block_size() * hv), v(k.size()), q(hv), ko(hv), vo(hv);
    for (std::uint32_t layer = begin; layer != end; ++layer) {
      data.fill(kv_part::query, shape, sequence.stream, length, layer, q);
      std::vector<attention_head> paged(shape.kv_heads), exact(shape.kv_heads);
      for (auto* heads : {&paged, &exact}) {
        for (auto& h : *heads) h.output.assign(shape.head_dim, 0.0);
      }
      for (std::uint32_t index = 0; index < table->size(); ++index) {
        const std::uint32_t tokens = *cache.read_block(sequence.seq, index, layer, k, v);
        for (std::uint32_t t = 0; t < tokens; ++t) {
          const std::uint32_t pos = first_pos + index * cache.block_size() + t;
          data.fill(kv_part::key, shape, sequence.stream, pos, layer, ko);
          data.fill(kv_part::value, shape, sequence.stream, pos, layer, vo);
          for (std::uint32_t h = 0; h < shape.kv_heads; ++h) {
            const std::size_t at = std::size_t{h} * shape.head_dim;
            const auto qh = std::span<const float>(q).subspan(at, shape.head_dim);
            paged[h].add(qh, &k[t * hv + at], &v[t * hv + at], scale);
            exact[h].add(qh, &ko[at], &vo[at], scale);
          }
        }
      }
      if (length <= first_pos) continue;
      add_output_error(paged, exact, per_layer[layer]);
    }
  });
  error_sum total;
  for (const auto& e : per_layer) total += e;
  return total;
}

double bits_per_value(const stored_format& f, const model_shape& shape,
                      std::uint32_t block_size) noexcept {
  if (f.q3 || f.level == precision::q3) return q3_bits_per_value(block_size, shape.head_dim, f.q4o_channels);
  if (f.level == precision::q4 && f.format == q4_format::q4o) {
    return q4o_bits_per_value(block_size, shape.head_dim, f.q4o_channels);
  }
  return 8.0 * static_cast<double>(payload_bytes_per_group(f.level) + scale_bytes_per_group(f.level)) /
         static_cast<double>(group_size);
}

error_sum measure_format_attention_error(const synthetic_kv& data, const model_shape& shape,
                                         const stored_format& f, std::uint32_t tokens,
                                         std::uint32_t block_size, std::uint64_t stream) {
  assert(tokens > 0 && block_size > 0);
  const std::size_t hv = shape.head_values();
  const double scale = 1.0 / std::sqrt(static_cast<double>(shape.head_dim));
  std::vector<error_sum> per_layer(shape.layers);
  parallel_chunks(std::uint32_t{0}, shape.layers, std::uint32_t{1}, [&](std::uint32_t begin, std::uint32_t end) {
    const std::size_t block_values = std::size_t{block_size} * hv;
    std::vector<float> ko(block_values), vo(block_values), k(block_values), v(block_values), q(hv);
    block_codec codec(shape, block_size, f.q4o_channels);
    for (std::uint32_t layer = begin; layer != end; ++layer) {
      data.fill(kv_part::query, shape, stream, tokens, layer, q);
      std::vector<attention_head> paged(shape.kv_heads), exact(shape.kv_heads);
      for (auto* heads : {&paged, &exact}) {
        for (auto& h : *heads) h.output.assign(shape.head_dim, 0.0);
      }
      for (std::uint32_t first = 0; first < tokens; first += block_size) {
        const std::uint32_t rows = std::min(block_size, tokens - first);
        for (std::uint32_t t = 0; t < rows; ++t) {
          data.fill(kv_part::key, shape, stream, first + t, layer, std::span<float>(ko).subspan(t * hv, hv));
          data.fill(kv_part::value, shape, stream, first + t, layer, std::span<float>(vo).subspan(t * hv, hv));
        }
        codec.round_trip(f, shape, kv_part::key, rows, ko.data(), k.data());
        codec.round_trip(f, shape, kv_part::value, rows, vo.data(), v.data());
        for (std::uint32_t t = 0; t < rows; ++t) {
          for (std::uint32_t h = 0; h < shape.kv_heads; ++h) {
            const std::size_t at = t * hv + std::size_t{h} * shape.head_dim;
            const auto qh = std::span<const float>(q).subspan(std::size_t{h} * shape.head_dim, shape.head_dim);
            paged[h].add(qh, &k[at], &v[at], scale);
            exact[h].add(qh, &ko[at], &vo[at], scale);
          }
        }
      }
      add_output_error(paged, exact, per_layer[layer]);
    }
  });
  error_sum total;
  for (const auto& e : per_layer) total += e;
  return total;
}

}  // namespace kvscope
