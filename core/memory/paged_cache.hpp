#pragma once
// The paged KV cache: sequences with block tables over a block_pool. Its contract, positions,
// tiers, errors, threading and block layout: docs/ARCHITECTURE.md, "The paged cache".
#include <array>
#include <cassert>
#include <algorithm>
#include <cstdint>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <vector>

#include "memory/block_pool.hpp"
#include "policy/block_level.hpp"
#include "quant/kernels.hpp"
#include "quant/q3.hpp"

namespace kvscope {

struct paged_cache_config {
  block_pool_config pool;
  std::uint32_t tail_tokens = 256;  // hot tail kept as allocated (fp16)
  std::uint32_t max_tokens = 0;     // sliding window per sequence; 0 = off
};

// What drop_sequence does with blocks whose refcount reaches zero.
enum class retention : std::uint8_t {
  free_all,          // every such block is freed
  cache_full_blocks  // full blocks stay cached (refcount 0) until evicted; partial ones are freed
};

struct migration_result {
  std::uint32_t blocks = 0;      // blocks re-quantized
  std::int64_t bytes_freed = 0;  // change of bytes_in_use, positive when memory was freed
  bool stalled = false;          // candidates existed but their new places did not fit
  std::array<std::uint32_t, kv_level_count> blocks_by_level{};  // `blocks` by the level they moved to
};

class paged_cache {
 public:
  // Throws std::invalid_argument with validate()'s message for a bad config.
  explicit paged_cache(const paged_cache_config& config);
  static std::optional<std::string> validate(const paged_cache_config& config);

  const paged_cache_config& config() const noexcept { return config_; }
  const model_shape& shape() const noexcept { return config_.pool.shape; }
  std::uint32_t block_size() const noexcept { return config_.pool.block_size; }
  const block_pool& pool() const noexcept { return pool_; }

  // --- sequences
  // A new empty sequence; ids are small and reused: the lowest free id is taken.
  sequence_id create_sequence();
  // Releases every block, last block first. With cache_full_blocks, full blocks reaching
  // refcount 0 stay cached and are appended to `cached` (if given) in that last-first order.
  expected<void, cache_error> drop_sequence(sequence_id seq, retention keep = retention::free_all,
                                            std::vector<block_id>* cached = nullptr);
  bool contains(sequence_id seq) const noexcept;
  // Live sequence ids, ascending.
  std::vector<sequence_id> sequences() const;
  // Tokens written (one past the highest position written or advanced over).
  expected<std::uint32_t, cache_error> length(sequence_id seq) const;
  // One past the last position the allocated blocks can hold.
  expected<std::uint32_t, cache_error> capacity(sequence_id seq) const;
  // Absolute index of the first live block (> 0 once the window dropped blocks).
  expected<std::uint32_t, cache_error> first_block(sequence_id seq) const;
  // Live blocks, oldest first; valid until the next non-const call. Copy the span out before a
  // range-for: `for (b : *cache.block_table(s))` would iterate a destroyed temporary.
  expected<std::span<const block_id>, cache_error> block_table(sequence_id seq) const;

  // --- blocks
  // Allocates fp16 blocks until capacity >= tokens; all or nothing (out_of_memory changes nothing).
  expected<void, cache_error> ensure_capacity(sequence_id seq, std::uint32_t tokens);
  // Appends one new block of tier `tier` to the sequence's table.
  expected<block_id, cache_error> append_block(sequence_id seq, precision tier);
  // Appends up to `count` new blocks of `tier`, as that many append_block() calls would, stopping
  // at the first that would run out of memory. Returns how many were appended.
  expected<std::uint32_t, cache_error> append_blocks(sequence_id seq, precision tier,
                                                     std::uint32_t count);
  // Appends an existing live or cached block (prefix sharing): refcount + 1, a cached block
  // comes back to life. Precondition: pool().is_live(b).
  expected<void, cache_error> append_shared(sequence_id seq, block_id b);
  // Removes the last table entry (undo of append_block / append_shared): refcount - 1, freed at
  // zero (never cached); length is cut to the new capacity. position_out_of_range when empty.
  expected<void, cache_error> pop_block(sequence_id seq);
  // Frees a cached block. Precondition: pool().is_cached(b).
  void evict(block_id b) noexcept { pool_.evict(b); }
  // length += tokens without writing data (accounting mode, or prefix tokens already present).
  // position_out_of_range when the result would exceed capacity.
  expected<void, cache_error> advance(sequence_id seq, std::uint32_t tokens) {
    sequence_blocks* s = find(seq);
    if (s == nullptr) return unexpected{cache_error::sequence_not_found};
    if (tokens != 1 || config_.max_tokens != 0 || block_of(s->length) >= s->table.size()) {
      return advance_many(seq, *s, tokens);
    }
    advance_one(seq);
    return {};
  }
  // advance(seq, 1) for a live sequence, without a window, whose blocks have room for the token
  // (all asserted, not checked): accounting mode advances every running sequence by one token
  // every step, so this is a handful of loads and stores, inline.
  void advance_one(sequence_id seq) noexcept {
    assert(find(seq) != nullptr && config_.max_tokens == 0);
    sequence_blocks& s = seqs_[static_cast<std::size_t>(seq)];
    // Without a window the table starts at block 0: the token lands in table[block_of(pos)].
    const std::uint32_t pos = s.length;
    const std::uint32_t block = block_of(pos);
    assert(block < s.table.size());
    const block_id id = s.table[block];
    const auto fill = static_cast<std::uint16_t>(pos - block * block_size() + 1);
    if (fill > pool_.fill(id)) pool_.set_fill(id, fill);
    s.length = pos + 1;
  }

  // --- data. Accounting mode stores nothing: write() only updates lengths, and read() and
  // read_block() report position_out_of_range, as no position holds data.
  // Stores K and V (kv_heads x head_dim floats each) of one layer at `pos`, rounded to fp16 or
  // quantized to the tier of its block. Writes to a shared block are seen by every sharer.
  expected<void, cache_error> write(sequence_id seq, std::uint32_t layer, std::uint32_t pos,
                                    std::span<const float> k, std::span<const float> v);
  // The data half of write(): stores K and V of one layer at `pos` into the block's bytes and
  // changes no metadata (call advance() for the tokens afterwards). Touches only that block's
  // payload and scales, the caller's `scratch` (head_values() halves) and, for a q4o block, this
  // thread's tile scratch, so calls for positions in different blocks may run concurrently;
  // nothing else may run meanwhile. Data mode only.
  // A q4o block's key tiles are quantized whole (quant/q4o.hpp): writing token t re-quantizes
  // each of the layer's tiles from the tokens already written (those before t, and any later
  // ones the block's fill counts) and the new one, so tokens go in order, as the engine writes.
  expected<void, cache_error> store_kv(sequence_id seq, std::uint32_t layer, std::uint32_t pos,
                                       std::span<const float> k, std::span<const float> v,
                                       std::span<fp16_bits> scratch) const;
  // Reads back K and V of one layer at `pos` (< length, not dropped), dequantized. Not const: it
  // remembers the block it resolved last, so reading a block slot by slot looks it up once (a
  // third of a slot's read time went into the lookup). Not for two threads at once; read_block is.
  expected<void, cache_error> read(sequence_id seq, std::uint32_t layer, std::uint32_t pos,
                                   std::span<float> k, std::span<float> v);
  // Reads the written tokens of table entry `index` for one layer: `k` and `v` get
  // tokens x kv_heads x head_dim floats, token-major (each needs block_size x that room).
  // Returns the number of tokens.
  expected<std::uint32_t, cache_error> read_block(sequence_id seq, std::uint32_t index,
                                                  std::uint32_t layer, std::span<float> k,
                                                  std::span<float> v) const;

  // --- tiers
  // Re-quantizes up to max_blocks cold blocks stored larger than `level` to `level` (q8 and
  // fp8 are the same size and never converted into each other). Picks sequences round-robin,
  // oldest blocks first; the block data work runs in parallel on TBB. Cached blocks are in no
  // table and keep their tier. When memory is so full that the picked blocks' new places do not
  // fit even after giving up their old ones, nothing changes and `stalled` is set.
  migration_result migrate(precision level, std::uint32_t max_blocks);
  // The same under a policy family: each cold block goes to the level block_level() gives it
  // (policy/block_level.hpp; `controller` is the ewma family's level). Picks in the same order
  // (sequences round-robin, each sequence's spans oldest first); a block shared by sequences
  // that ask for different levels goes to the most compact one. The picks are relocated level by
  // level, most compact first, each level all or nothing (`stalled` when one did not fit).
  // migrate(level, n) is migrate(policy_config{}, level, n).
  migration_result migrate(const policy_config& policy, precision controller,
                           std::uint32_t max_blocks);

  // bytes in use / budget.
  double utilization() const noexcept { return pool_.occupancy(); }
  std::size_t metadata_bytes() const noexcept;
  // pool().audit() plus: table entries are live, refcounts equal table references, cached blocks
  // are in no table, lengths within capacity. Empty when all hold.
  std::string audit() const;

 private:
  // Blocks from the span's start up to `block` are stored at most as big as `level` stores them.
  struct scan_cursor {
    std::uint32_t block = 0;
    precision level = precision::fp16;
  };
  struct sequence_blocks {
    std::vector<block_id> table;
    std::uint32_t length = 0;
    std::uint32_t first_block = 0;  // absolute index of table[0]
    // migrate: one cursor per span of the rule (policy/block_level.hpp), see pick_span.
    std::array<scan_cursor, max_level_spans> scan{};
    bool alive = false;
  };

  sequence_blocks* find(sequence_id seq) noexcept {
    if (seq < 0 || static_cast<std::size_t>(seq) >= seqs_.size()) return nullptr;
    sequence_blocks& s = seqs_[static_cast<std::size_t>(seq)];
    return s.alive ? &s : nullptr;
  }
  const sequence_blocks* find(sequence_id seq) const noexcept {
    return const_cast<paged_cache*>(this)->find(seq);
  }
  // Lengthens `s` and raises its blocks' fill. Inline: it runs for every token of every sequence,
  // and block_of() shifts where a division would cost more.
  void grow_length(sequence_blocks& s, std::uint32_t new_length) noexcept {
    if (new_length <= s.length) return;
    const std::uint32_t bs = block_size();
    const std::uint32_t last = block_of(new_length - 1);
    for (std::uint32_t b = std::max(block_of(s.length), s.first_block); b <= last; ++b) {
      const block_id id = s.table[b - s.first_block];
      const auto fill = static_cast<std::uint16_t>(std::min(bs, new_length - b * bs));
      if (fill > pool_.fill(id)) pool_.set_fill(id, fill);
    }
    s.length = new_length;
  }
  void apply_window(sequence_id seq, sequence_blocks& s);
  expected<void, cache_error> advance_many(sequence_id seq, sequence_blocks& s, std::uint32_t tokens);
  std::uint32_t block_of(std::uint32_t pos) const noexcept {
    return block_shift_ >= 0 ? pos >> block_shift_ : pos / block_size();
  }
  std::size_t token_offset(std::uint32_t token, std::uint32_t layer) const noexcept;
  // Values from one token's row of a tile to the next: the block is token-major, every layer's
  // K and V of a token together (token_offset).
  std::size_t tile_row_stride() const noexcept { return std::size_t{shape().layers} * 2 * shape().head_values(); }
  // Stores K and V of one token and layer of a block holding `written` tokens so far.
  void store_token(const block_data& d, std::uint32_t token, std::uint32_t layer, std::uint32_t written,
                   std::span<const float> k, std::span<const float> v, fp16_bits* scratch) const;
  void store(const block_data& d, std::size_t offset, std::span<const float> values,
             fp16_bits* scratch) const;
  void load(const block_data& d, std::size_t offset, std::span<float> values) const;
  void pick_span(sequence_blocks& s, const level_span& span, scan_cursor& cursor,
                 std::uint32_t max_blocks, std::vector<block_id>& picked, std::size_t& total);
  migration_result relocate_picks();
  void requantize(std::span<const block_id> blocks, std::span<const placement> from,
                  precision to);

  // q4o's key tiles in q4 blocks (memory/q4o_keys.cpp). A tile is one layer and kv head of a
  // block's keys: block_size rows, layers x 2 x head_values() values apart in the block.
  struct q4o_keys {
    bool on = false;               // q4 blocks are stored as q4o with at least one channel
    q4o_tile tile;
    std::size_t side_offset = 0;   // bytes from a block's scales to its first side record
    std::size_t record_bytes = 0;  // one tile's side record
  };
  bool is_q4o(precision tier) const noexcept { return q4o_.on && tier == precision::q4; }
  // The side record of tile (layer, head) of the block whose scales start at `scales`.
  std::uint8_t* side_record(fp16_bits* scales, std::uint32_t layer,
                            std::uint32_t head) const noexcept;
  const std::uint8_t* side_record(const fp16_bits* scales, std::uint32_t layer,
                                  std::uint32_t head) const noexcept;
  // Into a key tile's side record as the block keeps it (block_size codes a channel) from the
  // record a tile kernel wrote for the tile's first `rows` rows; unwritten rows' codes are zero.
  void keep_side_record(const std::uint8_t* side, std::size_t rows, std::size_t channels,
                        std::uint8_t* record) const noexcept;
  // Writes one token's keys into a q4o block holding `written` tokens (see store_kv).
  void store_q4o_key(const block_data& d, std::uint32_t token, std::uint32_t layer,
                     std::uint32_t written, std::span<const float> k) const;
  // Overwrites the outlier channels of one token's keys, already dequantized at q4 into `k`.
  void restore_q4o_keys(const fp16_bits* scales, std::uint32_t token, std::uint32_t layer,
                        float* k) const noexcept;
  // Migration: re-stores the key tiles of a block just quantized to q4 (into `payload` and
  // `scales`) as q4o, from the block's source bytes (fp16, q8 or fp8).
  void quantize_q4o_keys(const block_data& src, std::uint8_t* payload, fp16_bits* scales) const;

  // q3 blocks (memory/q3_blocks.cpp): every head vector a row of q3 codes with its own scale, in
  // the side table after which come the keys' tiles' side records (quant/q3.hpp).
  struct q3_layout {
    q3_tile key_tile;              // one layer and kv head of a block's keys
    std::size_t side_offset = 0;   // bytes from a block's scales to its first side record
    std::size_t record_bytes = 0;  // one key tile's side record
  };
  std::uint8_t* q3_record(fp16_bits* scales, std::uint32_t layer, std::uint32_t head) const noexcept;
  // Writes K and V of one token and layer into a q3 block holding `written` tokens: the keys'
  // tiles are quantized whole again, as q4o's (see store_kv).
  void store_q3_token(const block_data& d, std::uint32_t token, std::uint32_t layer,
                      std::uint32_t written, std::span<const float> k, std::span<const float> v) const;
  // The kv_heads head vectors at `offset` (a token and layer's K or V), dequantized, without the
  // keys' outlier channels (restore_q3_keys adds them).
  void load_q3(const std::uint8_t* payload, const fp16_bits* scales, std::size_t offset,
               float* values) const noexcept;
  void restore_q3_keys(const fp16_bits* scales, std::uint32_t token, std::uint32_t layer,
                       float* k) const noexcept;
  // Migration: stores a block of another level (`src`) as q3 into `payload` and `scales`.
  void quantize_q3_block(const block_data& src, std::uint8_t* payload, fp16_bits* scales) const;

  paged_cache_config config_;
  block_pool pool_;
  const kernel_set& kernels_;
  q4o_keys q4o_;
  q3_layout q3_;
  int block_shift_ = -1;  // log2(block_size) when it is a power of two: no division per access
  std::vector<sequence_blocks> seqs_;
  std::priority_queue<sequence_id, std::vector<sequence_id>, std::greater<>> free_ids_;
  // The block read() resolved last, with its tier's kernel and group sizes; right while
  // pool_.layout_version() equals `version`.
  struct resolved_block {
    block_id id = 0;
    std::uint64_t version = ~std::uint64_t{0};
    const std::uint8_t* payload = nullptr;
    const fp16_bits* scales = nullptr;
    dequantize_fn dequantize = nullptr;
    std::size_t payload_bytes_per_group = 0;
    std::size_t scale_halves_per_group = 0;
    bool q4o = false;  // a q4o block: its keys' outlier channels are restored after the q4 part
    bool q3 = false;   // a q3 block: read through load_q3, not `dequantize`
  };
  void resolve_for_read(block_id id);
  resolved_block last_read_;
  std::vector<fp16_bits> half_scratch_;  // write: f32 -> fp16 before quantizing
  std::vector<fp16_bits> staging_;       // migrate: re-quantized blocks before placement
  sequence_id migrate_cursor_ = 0;
  policy_config scan_rule_;  // the rule the scan cursors were built under (same_block_rule)
  std::array<std::vector<block_id>, kv_level_count> picked_;  // migrate: picks by target level
};

}  // namespace kvscope
