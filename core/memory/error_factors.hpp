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

namespace kvscope {

// By ordinal(precision): fp16, q8, fp8, q4. fp16 is not zero: the cache rounds to fp16.
inline constexpr std::array<double, 4> attention_error_factors = {8.4251e-04, 3.9861e-02, 6.0021e-02,
                                                                   3.8375e-01};

// q4o, the outlier-aware format of the q4 level (quant/q4o.hpp, 4 key channels at int8; 5.30
// bits a value at this shape's head_dim 64), on the same calibration, measured on the kernels by
// `kvscope-cli bench quality --q4-format q4o`. The cache does not store q4o yet, so no exposure
// weighs by it yet.
inline constexpr double q4o_attention_error_factor = 9.1676e-02;

}  // namespace kvscope

#include <cstdint>

#include "memory/model_shape.hpp"

namespace kvscope {

// Measures the factors: for each level, `sequences` sequences of `context_tokens` synthetic
// tokens whose every block is stored at that level, and the pooled relative L2 error of their
// decode attention against the f32 originals. Deterministic (seeded, any thread count).
std::array<double, 4> measure_attention_error_factors(const model_shape& shape,
                                                      std::uint32_t context_tokens,
                                                      std::uint32_t sequences, std::uint64_t seed);

}  // namespace kvscope
