#include "memory/kv_sample.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "quant/kernels.hpp"
#include "quant/q4o.hpp"
#include "quant/tier_layout.hpp"
#include "util/json_fields.hpp"

namespace kvscope {
namespace {

using detail::bad_field;

struct tensor {
  std::uint32_t rows = 0, heads = 0, head_dim = 0;
  std::vector<float> values;
};

float bf16_to_f32(std::uint16_t b) { return std::bit_cast<float>(std::uint32_t{b} << 16); }

// The tensor named one of `names`; `required` makes its absence an error.
bool find_tensor(const nlohmann::json& header, std::string_view data, std::initializer_list<const char*> names,
                 bool required, tensor& out) {
  for (const char* name : names) {
    const auto it = header.find(name);
    if (it == header.end()) continue;
    const std::string where = std::string("tensor '") + name + "'";
    if (!it->is_object() || !it->contains("dtype") || !it->contains("shape") || !it->contains("data_offsets")) {
      throw bad_field(where + ": needs dtype, shape and data_offsets");
    }
    const std::string dtype = it->at("dtype").is_string() ? it->at("dtype").get<std::string>() : "";
    const std::size_t width = dtype == "F32" ? 4 : dtype == "F16" || dtype == "BF16" ? 2 : 0;
    if (width == 0) throw bad_field(where + ": dtype '" + dtype + "' (F32, F16 or BF16 expected)");
    std::vector<std::uint64_t> shape;
    for (const auto& d : it->at("shape")) {
      if (!d.is_number_unsigned() || d.get<std::uint64_t>() == 0 || d.get<std::uint64_t>() > (1u << 24)) {
        throw bad_field(where + ": shape: expected positive integers");
      }
      shape.push_back(d.get<std::uint64_t>());
    }
    // [layers, tokens, heads, head_dim] is read as [tokens, layers x heads, head_dim]: the file's
    // layer-major order is transposed below, so a token's row holds every layer's heads.
    const std::uint64_t layers = shape.size() == 4 ? shape[0] : 1;
    if (shape.size() == 4) shape = {shape[1], shape[0] * shape[2], shape[3]};
    if (shape.size() != 3)
      throw bad_field(where + ": shape: expected [tokens, heads, head_dim] (or layers first)");
    const auto& offsets = it->at("data_offsets");
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) {
      throw bad_field(where + ": data_offsets: expected [begin, end]");
    }
    const auto begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
    const std::uint64_t count = shape[0] * shape[1] * shape[2];
    if (end < begin || end > data.size() || end - begin != count * width) {
      throw bad_field(where + ": data_offsets: [" + std::to_string(begin) + ", " +
                      std::to_string(end) + ") does not hold " + std::to_string(count) + " " +
                      dtype + " values in the file");
    }
    out.rows = static_cast<std::uint32_t>(shape[0]);
    out.heads = static_cast<std::uint32_t>(shape[1]);
    out.head_dim = static_cast<std::uint32_t>(shape[2]);
    out.values.resize(count);
    const char* p = data.data() + begin;
    const std::uint64_t layer_values = count / layers, row = shape[1] / layers * shape[2];
    for (std::uint64_t i = 0; i < count; ++i) {
      float value;
      if (width == 4) {
        std::memcpy(&value, p + 4 * i, 4);
      } else {
        std::uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        value = dtype == "F16" ? fp16_to_f32(h) : bf16_to_f32(h);
      }
      if (!std::isfinite(value)) throw bad_field(where + ": value " + std::to_string(i) + " is not finite");
      const std::uint64_t layer = i / layer_values, token = i % layer_values / row;
      out.values[token * layers * row + layer * row + i % row] = value;
    }
    return true;
  }
  if (required) throw bad_field(std::string("tensor '") + *names.begin() + "': missing");
  return false;
}

// Attention outputs of `queries` over `k`, `v` for one head.
void attend(const float* q, const float* k, const float* v, std::uint32_t tokens, std::uint32_t stride,
            std::uint32_t dim, std::vector<double>& out) {
  std::vector<double> w(tokens);
  double top = -INFINITY;
  for (std::uint32_t t = 0; t < tokens; ++t) {
    double dot = 0;
    for (std::uint32_t d = 0; d < dim; ++d) dot += double{q[d]} * k[t * stride + d];
    w[t] = dot / std::sqrt(static_cast<double>(dim));
    top = std::max(top, w[t]);
  }
  double sum = 0;
  for (auto& x : w) sum += (x = std::exp(x - top));
  out.assign(dim, 0);
  for (std::uint32_t t = 0; t < tokens; ++t) {
    for (std::uint32_t d = 0; d < dim; ++d) out[d] += w[t] / sum * v[t * stride + d];
  }
}

}  // namespace

expected<kv_sample, std::string> parse_kv_sample(std::string_view bytes, std::string_view source) {
  return detail::with_source(source, [&]() -> kv_sample {
    if (bytes.size() < 8) throw bad_field("too short for a safetensors header");
    std::uint64_t n = 0;
    std::memcpy(&n, bytes.data(), 8);  // little-endian, as the format says (x86 and ARM are)
    if (n > bytes.size() - 8)
      throw bad_field("header length " + std::to_string(n) + " runs past the end");
    nlohmann::json header;
    try {
      header = nlohmann::json::parse(bytes.substr(8, n));
    } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number past a double
      throw bad_field(std::string("header: invalid JSON: ") + e.what());
    }
    if (!header.is_object()) throw bad_field("header: expected a JSON object");
    const std::string_view data = bytes.substr(8 + n);
    tensor k, v, q;
    find_tensor(header, data, {"k", "key", "keys"}, true, k);
    find_tensor(header, data, {"v", "value", "values"}, true, v);
    const bool has_q = find_tensor(header, data, {"q", "query", "queries"}, false, q);
    if (v.rows != k.rows || v.heads != k.heads || v.head_dim != k.head_dim) {
      throw bad_field("tensor 'v': shape differs from the keys'");
    }
    if (k.head_dim % group_size != 0) {
      throw bad_field("tensor 'k': head_dim " + std::to_string(k.head_dim) +
                      " is not a multiple of 32");
    }
    kv_sample s;
    s.tokens = k.rows;
    s.heads = k.heads;
    s.head_dim = k.head_dim;
    s.k = std::move(k.values);
    s.v = std::move(v.values);
    if (has_q) {
      if (q.heads != s.heads || q.head_dim != s.head_dim)
        throw bad_field("tensor 'q': heads or head_dim differ from the keys'");
      s.queries = q.rows;
      s.q = std::move(q.values);
    } else {
      s.queries = std::min<std::uint32_t>(16, s.tokens);
      const std::size_t row = std::size_t{s.heads} * s.head_dim;
      s.q.assign(s.k.end() - static_cast<std::ptrdiff_t>(s.queries * row), s.k.end());
    }
    return s;
  });
}

expected<kv_sample, std::string> read_kv_sample(const std::filesystem::path& path) {
  return detail::read_and_parse(path, parse_kv_sample);
}

namespace {

// Relative L2 error of attention on stored K/V (`k`, `v`, laid out as the sample's) vs the sample.
double attention_error(const kv_sample& s, const std::vector<float>& k, const std::vector<float>& v) {
  const std::uint32_t stride = s.heads * s.head_dim;
  double error = 0, reference = 0;
  std::vector<double> exact, measured;
  for (std::uint32_t qi = 0; qi < s.queries; ++qi) {
    for (std::uint32_t h = 0; h < s.heads; ++h) {
      const float* q = s.q.data() + (std::size_t{qi} * s.heads + h) * s.head_dim;
      const std::size_t at = std::size_t{h} * s.head_dim;
      attend(q, s.k.data() + at, s.v.data() + at, s.tokens, stride, s.head_dim, exact);
      attend(q, k.data() + at, v.data() + at, s.tokens, stride, s.head_dim, measured);
      for (std::uint32_t d = 0; d < s.head_dim; ++d) {
        error += (measured[d] - exact[d]) * (measured[d] - exact[d]);
        reference += exact[d] * exact[d];
      }
    }
  }
  return reference > 0 ? std::sqrt(error / reference) : NAN;
}

// Rounds to fp16 (what the cache stores), quantizes to the level, and back.
std::vector<float> round_trip(const std::vector<float>& src, precision p) {
  const std::size_t groups = src.size() / group_size;
  std::vector<fp16_bits> half(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) half[i] = f32_to_fp16(src[i]);
  std::vector<std::uint8_t> payload(groups * payload_bytes_per_group(p));
  std::vector<fp16_bits> scales(groups * scale_halves_per_group(p) + 1);
  std::vector<float> out(src.size());
  quantize(p, half.data(), groups, payload.data(), scales.data());
  dequantize(p, payload.data(), scales.data(), groups, out.data());
  return out;
}

}  // namespace

std::array<double, kv_level_count> attention_error_factors_of(const kv_sample& s) {
  std::array<double, kv_level_count> factors{};
  for (precision p : group_levels) {
    factors[ordinal(p)] = attention_error(s, round_trip(s.k, p), round_trip(s.v, p));
  }
  // The q3 level as the cache stores it: the default outlier channels, the Lloyd-Max codebook.
  factors[ordinal(precision::q3)] = q3_attention_error_of(s, q4o_default_channels);
  return factors;
}

namespace {

// Keys or values of the sample stored tile by tile (`block_size` tokens of one head) through
// `store_and_load(tile rows, head's first value, halves, stored values)`, as fp16 first.
template <class StoreAndLoad>
std::vector<float> tile_round_trip(const kv_sample& s, const std::vector<float>& src,
                                   std::uint32_t block_size, StoreAndLoad store_and_load) {
  const std::size_t stride = std::size_t{s.heads} * s.head_dim;
  std::vector<fp16_bits> half(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) half[i] = f32_to_fp16(src[i]);
  std::vector<float> out(half.size());
  for (std::size_t first = 0; first < s.tokens; first += block_size) {
    const std::size_t rows = std::min<std::size_t>(block_size, s.tokens - first);
    for (std::size_t at = first * stride; at < first * stride + stride; at += s.head_dim) {
      store_and_load(rows, at, half, out);
    }
  }
  return out;
}

}  // namespace

double q4o_attention_error_of(const kv_sample& s, std::uint32_t channels, std::uint32_t block_size) {
  if (!valid_q4o_tile({block_size, s.head_dim, channels})) return NAN;
  const std::size_t stride = std::size_t{s.heads} * s.head_dim;
  std::vector<std::uint8_t> payload(s.k.size() / 2), side(q4o_side_bytes(block_size, channels));
  std::vector<fp16_bits> scales(s.k.size() / 16);
  const q4o_kernel_set& kernels = best_q4o_kernels();
  const auto k = tile_round_trip(s, s.k, block_size, [&](std::size_t rows, std::size_t at,
                                                         const std::vector<fp16_bits>& half,
                                                         std::vector<float>& out) {
    const q4o_tile tile{rows, s.head_dim, channels};
    kernels.quantize(tile, half.data() + at, stride, payload.data() + at / 2, scales.data() + at / 16,
                     stride, side.data());
    kernels.dequantize(tile, payload.data() + at / 2, scales.data() + at / 16, stride, side.data(),
                       out.data() + at, stride);
  });
  return attention_error(s, k, round_trip(s.v, precision::q4));
}

double q3_attention_error_of(const kv_sample& s, std::uint32_t channels, q3_codebook codebook,
                             std::uint32_t block_size) {
  if (!valid_q3_tile({block_size, s.head_dim, channels, codebook})) return NAN;
  const std::size_t stride = std::size_t{s.heads} * s.head_dim;
  std::vector<std::uint8_t> payload(q3_payload_bytes(s.k.size())), side(q4o_side_bytes(block_size, channels));
  std::vector<fp16_bits> scales(s.k.size() / s.head_dim);
  const q3_kernel_set& kernels = best_q3_kernels();
  const auto store = [&](std::uint32_t k) {
    return [&, k](std::size_t rows, std::size_t at, const std::vector<fp16_bits>& half, std::vector<float>& out) {
      const q3_tile tile{rows, s.head_dim, k, codebook};
      std::uint8_t* codes = payload.data() + q3_payload_bytes(at);
      kernels.quantize(tile, half.data() + at, stride, codes, scales.data() + at / s.head_dim, stride, side.data());
      kernels.dequantize(tile, codes, scales.data() + at / s.head_dim, stride, side.data(), out.data() + at, stride);
    };
  };
  return attention_error(s, tile_round_trip(s, s.k, block_size, store(channels)),
                         tile_round_trip(s, s.v, block_size, store(0)));
}

}  // namespace kvscope
