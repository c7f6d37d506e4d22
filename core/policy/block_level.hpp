#pragma once
// The level a policy family asks for each block of a sequence (docs/policy.md, "Policy
// families"): pure arithmetic on the sequence's length, shared by migration (which blocks to
// re-quantize, to what) and allocation (the tier a block is born at).
#include <array>
#include <cstddef>
#include <cstdint>

#include "policy/policy_config.hpp"
#include "quant/level.hpp"

namespace kvscope {

// Blocks [begin, end) of a sequence (absolute block indices) asked to be at `level`.
struct level_span {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  precision level = precision::fp16;
};

// The most spans a family gives: age's q3, q4 and q8 spans.
inline constexpr std::size_t max_level_spans = 3;

// At most max_level_spans spans, disjoint, in ascending block order; every block outside them
// stays fp16.
struct level_spans {
  std::array<level_span, max_level_spans> span{};
  std::uint32_t count = 0;
};

// Where a sequence stands: tokens written, tokens per block, the hot tail kept fp16 whatever the
// family (paged_cache_config::tail_tokens).
struct sequence_extent {
  std::uint32_t length = 0;
  std::uint32_t block_size = 16;
  std::uint32_t tail_tokens = 0;
};

// The spans of `policy`'s family for a sequence of `extent`; `controller` is the ewma family's
// level (ignored by the others). The ewma and static families give one span, [0, cold end),
// even at fp16; age gives its q4 span then its q8 span (its q3 span first when it has
// q3_age_tokens); sinks_recent one span between the sinks
// and the recent tokens. Empty spans are kept (begin == end).
level_spans cold_spans(const policy_config& policy, precision controller,
                       const sequence_extent& extent) noexcept;

// The level of block `block` (absolute index) under the same rule: the span holding it, or fp16.
precision block_level(const policy_config& policy, precision controller,
                      const sequence_extent& extent, std::uint32_t block) noexcept;

// True when the rule asks fp16 of every block whatever the sequence: the ewma family while the
// controller is at fp16, the static family at fp16.
bool asks_only_fp16(const policy_config& policy, precision controller) noexcept;

// True when both configs pick the same blocks for the same inputs apart from the controller's
// level: the same family and, for the families that have them, the same parameters.
bool same_block_rule(const policy_config& a, const policy_config& b) noexcept;

}  // namespace kvscope
