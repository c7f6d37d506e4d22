#pragma once
// The relative L2 error of decode attention when a sequence's whole context is stored at one
// level, measured in data mode on kvscope's synthetic K/V (keys with outlier channels). Accounting
// mode cannot measure error (its blocks hold no bytes), so it reports an exposure instead: the
// share of attended KV token-reads served at each level times that level's factor.
//
// Produced by `kvscope-cli bench quality` (model tiny, 1,024-token contexts, 16 sequences), which
// prints this table; its test re-measures and checks the constants still hold.
#include <array>

#include "quant/level.hpp"
#include "quant/q4o.hpp"

namespace kvscope {

// By ordinal(precision): fp16, q8, fp8, q4, q3. fp16 is not zero: the cache rounds to fp16. q3's
// is the cache's q3 (quant/q3.hpp) with the default q4o_default_channels key channels.
inline constexpr std::array<double, kv_level_count> attention_error_factors = {
    8.4251e-04, 3.9861e-02, 6.0021e-02, 3.8375e-01, 2.2860e-01};

// q4o, the outlier-aware format of the q4 level (quant/q4o.hpp), by its key channels k kept at
// int8 per block, layer and kv head (0..16; 5.30 bits a value at this shape's head_dim 64 with
// the default 4), on the same calibration, measured on the kernels by `kvscope-cli bench quality
// --q4-format q4o --q4o-channels k`. k = 0 stores what q4 stores: q4's factor.
inline constexpr std::array<double, q4o_max_channels + 1> q4o_attention_error_factors = {
    3.8375e-01, 3.0088e-01, 2.1652e-01, 1.6796e-01, 9.1676e-02, 9.1396e-02,
    9.1031e-02, 9.0257e-02, 9.0063e-02, 9.0262e-02, 8.9616e-02, 8.8842e-02,
    8.8858e-02, 8.8627e-02, 8.8016e-02, 8.7852e-02, 8.9609e-02};
inline constexpr double q4o_attention_error_factor = q4o_attention_error_factors[q4o_default_channels];

// The factors a run's attention_error_exposure weighs the levels by: the five above, q4's
// replaced by q4o's with `channels` when the q4 level stores q4o. q3's stays the one measured with
// the default channels whatever `channels` is.
// Precondition: channels <= q4o_max_channels.
std::array<double, kv_level_count> attention_error_factors_for(q4_format format, std::uint32_t channels) noexcept;

}  // namespace kvscope

#include <cstdint>

#include "memory/model_shape.hpp"

namespace kvscope {

// Measures the factors: for each level, `sequences` sequences of `context_tokens` synthetic
// tokens written at fp16, then every full block migrated to that level (as most of a run's
// blocks reach it; for all but q3's tiles the same bits as writing into blocks of the level),
// and the pooled relative L2 error of their decode attention against the f32 originals.
// Deterministic (seeded, any thread count).
std::array<double, kv_level_count> measure_attention_error_factors(const model_shape& shape,
                                                      std::uint32_t context_tokens,
                                                      std::uint32_t sequences, std::uint64_t seed);

}  // namespace kvscope
