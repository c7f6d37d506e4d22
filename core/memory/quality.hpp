#pragma once
// Quality, measured rather than assumed (docs/ARCHITECTURE.md, "Paged memory"): quantization error per level and the
// error of decode attention over the paged cache, both against the regenerated synthetic
// originals (f32, before any fp16 rounding). Parallel work is per block or per layer with
// per-item partial sums added up in a fixed order, so results do not depend on thread count.
#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "memory/paged_cache.hpp"
#include "memory/synthetic_kv.hpp"
#include "quant/q3.hpp"
#include "quant/q4o.hpp"

namespace kvscope {

struct error_sum {
  double squared_error = 0;      // sum of (measured - original)^2
  double squared_reference = 0;  // sum of original^2
  std::uint64_t values = 0;

  // sqrt(squared_error / squared_reference); NaN when nothing was measured.
  double relative() const noexcept;
  error_sum& operator+=(const error_sum& other) noexcept;
};

// A sequence of the cache and the synthetic stream its data came from.
struct sequence_stream {
  sequence_id seq = no_sequence;
  std::uint64_t stream = 0;
};

// Writes the synthetic K and V of positions [from, to) for every layer of `seq`.
// Errors as paged_cache::write (capacity must already be there).
expected<void, cache_error> write_synthetic(paged_cache& cache, const synthetic_kv& data,
                                            sequence_id seq, std::uint64_t stream,
                                            std::uint32_t from, std::uint32_t to);

// Kernel error without a cache: K and V of `tokens` synthetic tokens of `shape`, rounded to fp16,
// quantized to each level and back; relative RMSE vs the f32 originals, by ordinal(level).
std::array<error_sum, kv_level_count> measure_kernel_error(const synthetic_kv& data, const model_shape& shape,
                                              std::uint32_t tokens, std::uint64_t stream = 0);

// What the cache returns vs the originals, summed by the tier of the block holding each value.
// Looks at every block of the listed sequences when max_blocks is 0, else at most max_blocks
// blocks spread evenly over them. Data mode only (accounting mode measures nothing).
std::array<error_sum, kv_level_count> measure_cache_error(const paged_cache& cache, const synthetic_kv& data,
                                             std::span<const sequence_stream> sequences,
                                             std::uint32_t max_blocks = 0);

// Decode attention for the next token of `seq`, every layer and kv head: softmax(q k^T / sqrt(d)) V
// over the paged cache, dequantizing one block at a time into a block-sized scratch, vs the same
// on the originals; the error sum of the outputs (relative() is the relative L2 error).
expected<error_sum, cache_error> measure_attention_error(const paged_cache& cache,
                                                         const synthetic_kv& data,
                                                         sequence_stream sequence);

// How a sequence's blocks are stored: a level, and for q4 its format (quant/q4o.hpp). The q3
// level stores the Lloyd-Max codebook; `q3` set stores q3 (quant/q3.hpp) with that codebook
// whatever `level` and `format` say (`bench quality` compares the codebooks). q4o and q3 keep
// `q4o_channels` key channels at int8.
struct stored_format {
  precision level = precision::q4;
  q4_format format = q4_format::q4;
  std::uint32_t q4o_channels = q4o_default_channels;
  std::optional<q3_codebook> q3 = std::nullopt;
};

// Bits per stored value of a block of `block_size` tokens, scales, indices and outlier codes
// included: 16, 8.5, 8.5, 5 for the plain levels; q4o_bits_per_value() for q4o and
// q3_bits_per_value() for q3.
double bits_per_value(const stored_format& f, const model_shape& shape, std::uint32_t block_size) noexcept;

// Decode attention error of one sequence of `tokens` synthetic tokens (stream `stream`) with
// every block of `block_size` tokens stored in `f`, measured on the kernels without a paged
// cache: each block is rounded to fp16, quantized and dequantized as the cache stores and reads
// it, with q4o or q3 tiles per (layer, kv head) (q3 also for values, without outlier channels).
// For the plain levels the result equals measure_attention_error over a paged cache holding the
// same blocks at that level. Precondition: tokens > 0; for q4o and q3,
// valid_q4o_tile({block_size, head_dim, q4o_channels}).
error_sum measure_format_attention_error(const synthetic_kv& data, const model_shape& shape,
                                         const stored_format& f, std::uint32_t tokens,
                                         std::uint32_t block_size, std::uint64_t stream);

}  // namespace kvscope
