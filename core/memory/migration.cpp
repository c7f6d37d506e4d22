// paged_cache::migrate: cold blocks re-quantized to the level the policy asks for each, bounded
// per call.
// Selection and placement run on the owner thread in a fixed order; only the per-block data work
// runs in parallel, each task reading one block and writing its own staging area, so the result
// is the same for any number of threads.
#include <algorithm>
#include <cstring>
#include <iterator>

#include "memory/paged_cache.hpp"
#include "util/parallel.hpp"

namespace kvscope {

void paged_cache::pick_span(sequence_blocks& s, const level_span& span, scan_cursor& cursor,
                           std::uint32_t max_blocks, std::vector<block_id>& picked,
                           std::size_t& total) {
  // Every block from the span's start up to the cursor is at most as big as cursor.level stores
  // it (blocks never grow back: no expansion on a fall). A stricter level must look at them
  // again; a laxer one is already met by them, so the cursor stays and takes the laxer level
  // (without this, each step after a fall rescanned every sequence from the old cursor to its
  // hot tail). A span's start only moves forward (a sequence only grows), and a block it leaves
  // behind belongs to a stricter span, so the cursor stays valid for the blocks it keeps.
  const std::uint64_t target = pool_.layout(span.level).total_bytes();
  const std::uint64_t scanned = pool_.layout(cursor.level).total_bytes();
  const std::uint32_t begin = std::max(span.begin, s.first_block);
  if (target < scanned) cursor.block = begin;
  if (target != scanned) cursor.level = span.level;
  cursor.block = std::max(cursor.block, begin);
  bool advancing = true;  // the cursor follows the leading run of blocks that need nothing
  const std::uint64_t end = std::min<std::uint64_t>(span.end, s.first_block + s.table.size());
  for (std::uint64_t b = cursor.block; b < end && total < max_blocks; ++b) {
    const block_id id = s.table[b - s.first_block];
    if (pool_.layout(pool_.tier(id)).total_bytes() <= target) {
      if (advancing) cursor.block = static_cast<std::uint32_t>(b + 1);
      continue;
    }
    advancing = false;
    picked.push_back(id);
    ++total;
  }
}

migration_result paged_cache::migrate(precision level, std::uint32_t max_blocks) {
  return migrate(policy_config{}, level, max_blocks);
}

migration_result paged_cache::migrate(const policy_config& policy, precision controller,
                                      std::uint32_t max_blocks) {
  if (!same_block_rule(policy, scan_rule_)) {
    for (auto& s : seqs_) s.scan = {};  // the cursors only hold under the rule they were built by
    scan_rule_ = policy;
  }
  if (max_blocks == 0 || seqs_.empty()) return {};
  // Nothing is stored larger than fp16, so a rule asking fp16 of every block has no candidates.
  // Skipping the scan keeps every cursor valid: blocks before a cursor stay at most its level's
  // size (blocks never grow back), and a later stricter level rescans from where it would have.
  if (asks_only_fp16(policy, controller)) return {};
  for (auto& p : picked_) p.clear();
  std::size_t total = 0;
  const std::size_t count = seqs_.size();
  const std::size_t start = static_cast<std::size_t>(migrate_cursor_) % count;
  for (std::size_t i = 0; i < count && total < max_blocks; ++i) {
    const std::size_t id = (start + i) % count;
    sequence_blocks& s = seqs_[id];
    if (!s.alive) continue;
    const level_spans spans =
        cold_spans(policy, controller, {s.length, block_size(), config_.tail_tokens});
    for (std::uint32_t k = 0; k < spans.count && total < max_blocks; ++k) {
      pick_span(s, spans.span[k], s.scan[k], max_blocks, picked_[ordinal(spans.span[k].level)], total);
    }
    if (total >= max_blocks) migrate_cursor_ = static_cast<sequence_id>((id + 1) % count);
  }
  return relocate_picks();
}

migration_result paged_cache::relocate_picks() {
  for (auto& p : picked_) {
    std::sort(p.begin(), p.end());  // a shared block may be picked by each sharer
    p.erase(std::unique(p.begin(), p.end()), p.end());
  }
  // A block shared by sequences asking for different levels goes to the most compact one.
  constexpr int most_compact = static_cast<int>(kv_level_count) - 1;
  for (int strict = most_compact; strict > 0; --strict) {
    if (picked_[strict].empty()) continue;
    for (int lax = 1; lax < strict; ++lax) {
      auto& p = picked_[lax];
      if (p.empty()) continue;
      std::vector<block_id> kept;
      std::set_difference(p.begin(), p.end(), picked_[strict].begin(), picked_[strict].end(),
                          std::back_inserter(kept));
      p = std::move(kept);
    }
  }
  migration_result result;
  const std::uint64_t before = pool_.bytes_in_use();
  for (int l = most_compact; l > 0; --l) {  // most compact first: it frees the room the laxer ones need
    const std::vector<block_id>& picked = picked_[l];
    if (picked.empty()) continue;
    const precision level = all_precisions[l];
    const auto from = pool_.relocate(picked, level);
    if (!from) {
      result.stalled = true;
      continue;
    }
    if (config_.pool.mode == payload_mode::data) requantize(picked, *from, level);
    result.blocks += static_cast<std::uint32_t>(picked.size());
    result.blocks_by_level[l] = static_cast<std::uint32_t>(picked.size());
  }
  result.bytes_freed =
      static_cast<std::int64_t>(before) - static_cast<std::int64_t>(pool_.bytes_in_use());
  return result;
}

void paged_cache::requantize(std::span<const block_id> blocks, std::span<const placement> from,
                             precision to) {
  const tier_layout& out = pool_.layout(to);
  const std::size_t stride = (out.payload_bytes + out.scale_bytes) / sizeof(fp16_bits);
  const std::size_t groups = block_size() * shape().values_per_token() / group_size;
  staging_.resize(blocks.size() * stride);
  const kernel_set& k = kernels_;
  // The new places may be frames the batch just gave up: read every source before writing any.
  parallel_chunks(std::size_t{0}, blocks.size(), std::size_t{1}, [&](std::size_t begin, std::size_t end) {
    constexpr std::size_t chunk = 64;  // groups per pass through the scratch buffers
    float values[chunk * group_size];
    fp16_bits halves[chunk * group_size];
    for (std::size_t i = begin; i != end; ++i) {
      const block_data src = pool_.data_at(from[i].place, from[i].tier);
      const precision tier = from[i].tier;
      auto* payload = reinterpret_cast<std::uint8_t*>(staging_.data() + i * stride);
      fp16_bits* scales = staging_.data() + i * stride + out.payload_bytes / sizeof(fp16_bits);
      if (to == precision::q3) {  // a tile format: its own pass (memory/q3_blocks.cpp)
        quantize_q3_block(src, payload, scales);
        continue;
      }
      for (std::size_t g = 0; g < groups; g += chunk) {
        const std::size_t n = std::min(chunk, groups - g);
        const fp16_bits* input = halves;
        if (tier == precision::fp16) {
          input = reinterpret_cast<const fp16_bits*>(src.payload) + g * group_size;
        } else {
          k.dequantize[ordinal(tier)](src.payload + g * payload_bytes_per_group(tier),
                                      src.scales + g * scale_halves_per_group(tier), n, values);
          k.f32_to_fp16(values, halves, n * group_size);
        }
        k.quantize[ordinal(to)](input, n, payload + g * payload_bytes_per_group(to),
                                scales + g * scale_halves_per_group(to));
      }
      // q4o: the keys again, tile by tile, over the q4 the loop wrote for them.
      if (is_q4o(to)) quantize_q4o_keys(src, payload, scales);
    }
  });
  parallel_for_each_index(std::size_t{0}, blocks.size(), [&](std::size_t i) {
    const block_data dst = pool_.data(blocks[i]);
    const fp16_bits* staged = staging_.data() + i * stride;
    std::memcpy(dst.payload, staged, out.payload_bytes);
    std::memcpy(dst.scales, staged + out.payload_bytes / sizeof(fp16_bits), out.scale_bytes);
  });
}

}  // namespace kvscope
