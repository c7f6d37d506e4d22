// paged_cache::migrate: cold blocks re-quantized to the policy's level, bounded per call.
// Selection and placement run on the owner thread in a fixed order; only the per-block data work
// runs in parallel, each task reading one block and writing its own staging area, so the result
// is the same for any number of threads.
#include <algorithm>
#include <cstring>

#include "memory/paged_cache.hpp"
#include "util/parallel.hpp"

namespace kvscope {

void paged_cache::pick_cold(sequence_blocks& s, precision level, std::uint32_t max_blocks,
                            std::vector<block_id>& picked) {
  // Every block before scan_block is at most as big as scan_level stores it (blocks never grow
  // back: no expansion on a fall). A stricter level must look at them again; a laxer one is
  // already met by them, so the cursor stays and takes the laxer level (without this, each
  // step after a fall rescanned every sequence from the old cursor to its hot tail).
  const std::uint64_t target = pool_.layout(level).total_bytes();
  const std::uint64_t scanned = pool_.layout(s.scan_level).total_bytes();
  if (target < scanned) s.scan_block = s.first_block;
  if (target != scanned) s.scan_level = level;
  s.scan_block = std::max(s.scan_block, s.first_block);
  bool advancing = true;  // the cursor follows the leading run of blocks that need nothing
  const std::uint32_t tail = config_.tail_tokens;
  const std::uint64_t cold_end = s.length > tail ? (s.length - tail) / block_size() : 0;
  const std::uint64_t end = std::min<std::uint64_t>(cold_end, s.first_block + s.table.size());
  for (std::uint64_t b = s.scan_block; b < end && picked.size() < max_blocks; ++b) {
    const block_id id = s.table[b - s.first_block];
    if (pool_.layout(pool_.tier(id)).total_bytes() <= target) {
      if (advancing) s.scan_block = static_cast<std::uint32_t>(b + 1);
      continue;
    }
    advancing = false;
    picked.push_back(id);
  }
}

migration_result paged_cache::migrate(precision level, std::uint32_t max_blocks) {
  migration_result result;
  if (max_blocks == 0 || seqs_.empty()) return result;
  std::vector<block_id> picked;
  const std::size_t count = seqs_.size();
  const std::size_t start = static_cast<std::size_t>(migrate_cursor_) % count;
  for (std::size_t i = 0; i < count && picked.size() < max_blocks; ++i) {
    const std::size_t id = (start + i) % count;
    if (!seqs_[id].alive) continue;
    pick_cold(seqs_[id], level, max_blocks, picked);
    if (picked.size() >= max_blocks) migrate_cursor_ = static_cast<sequence_id>((id + 1) % count);
  }
  std::sort(picked.begin(), picked.end());  // a shared block may be picked by each sharer
  picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
  if (picked.empty()) return result;

  const std::uint64_t before = pool_.bytes_in_use();
  const auto from = pool_.relocate(picked, level);
  if (!from) {
    result.stalled = true;
    return result;
  }
  if (config_.pool.mode == payload_mode::data) requantize(picked, *from, level);
  result.blocks = static_cast<std::uint32_t>(picked.size());
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
