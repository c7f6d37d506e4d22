#include "policy/block_level.hpp"

#include <algorithm>

namespace kvscope {
namespace {

// Blocks wholly before the last `keep` tokens: block b ends at token (b+1)·bs, so it qualifies
// when (b+1)·bs <= length − keep, i.e. b < floor((length − keep) / bs).
std::uint32_t blocks_before_last(const sequence_extent& e, std::uint64_t keep) noexcept {
  const std::uint64_t length = e.length;
  return length > keep ? static_cast<std::uint32_t>((length - keep) / e.block_size) : 0;
}

}  // namespace

level_spans cold_spans(const policy_config& p, precision controller,
                       const sequence_extent& e) noexcept {
  level_spans out;
  const std::uint64_t tail = e.tail_tokens;
  switch (p.family) {
    case policy_family::ewma:
      out.span[0] = {0, blocks_before_last(e, tail), controller};
      out.count = 1;
      break;
    case policy_family::fixed:
      out.span[0] = {0, blocks_before_last(e, tail), p.fixed_level};
      out.count = 1;
      break;
    case policy_family::age: {
      // A block's age is the tokens written after it: length − (b+1)·bs. At least M: q4; at
      // least N: q8. The hot tail stays fp16 even when N or M is shorter.
      const std::uint32_t q4_end = blocks_before_last(e, std::max<std::uint64_t>(p.q4_age_tokens, tail));
      const std::uint32_t q8_end = blocks_before_last(e, std::max<std::uint64_t>(p.q8_age_tokens, tail));
      // At least Q (when set): q3, a span before q4's, which then starts where q3's ends.
      const std::uint32_t q3_end =
          p.q3_age_tokens ? blocks_before_last(e, std::max<std::uint64_t>(*p.q3_age_tokens, tail)) : 0;
      const std::uint32_t q4_begin = std::min(q3_end, q4_end);
      if (p.q3_age_tokens) out.span[out.count++] = {0, q4_begin, precision::q3};
      out.span[out.count++] = {q4_begin, q4_end, precision::q4};
      out.span[out.count++] = {q4_end, std::max(q4_end, q8_end), precision::q8};
      break;
    }
    case policy_family::sinks_recent: {
      // Block b holds a sink token when b·bs < S, i.e. b < ceil(S / bs); a recent token when
      // it is not wholly before the last R tokens.
      const auto sinks = static_cast<std::uint32_t>(
          (std::uint64_t{p.sink_tokens} + e.block_size - 1) / e.block_size);
      const std::uint32_t end = blocks_before_last(e, std::max<std::uint64_t>(p.recent_tokens, tail));
      out.span[0] = {sinks, std::max(sinks, end), p.fixed_level};
      out.count = 1;
      break;
    }
  }
  return out;
}

precision block_level(const policy_config& p, precision controller, const sequence_extent& e,
                      std::uint32_t block) noexcept {
  const level_spans spans = cold_spans(p, controller, e);
  for (std::uint32_t i = 0; i < spans.count; ++i) {
    if (block >= spans.span[i].begin && block < spans.span[i].end) return spans.span[i].level;
  }
  return precision::fp16;
}

bool asks_only_fp16(const policy_config& p, precision controller) noexcept {
  switch (p.family) {
    case policy_family::ewma: return controller == precision::fp16;
    case policy_family::fixed:
    case policy_family::sinks_recent: return p.fixed_level == precision::fp16;
    case policy_family::age: return false;
  }
  return false;
}

bool same_block_rule(const policy_config& a, const policy_config& b) noexcept {
  if (a.family != b.family) return false;
  switch (a.family) {
    case policy_family::ewma: return true;
    case policy_family::fixed: return a.fixed_level == b.fixed_level;
    case policy_family::age:
      return a.q8_age_tokens == b.q8_age_tokens && a.q4_age_tokens == b.q4_age_tokens &&
             a.q3_age_tokens == b.q3_age_tokens;
    case policy_family::sinks_recent:
      return a.fixed_level == b.fixed_level && a.sink_tokens == b.sink_tokens &&
             a.recent_tokens == b.recent_tokens;
  }
  return false;
}

}  // namespace kvscope
