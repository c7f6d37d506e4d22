#include "memory/paged_cache.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <stdexcept>

namespace kvscope {

std::optional<std::string> paged_cache::validate(const paged_cache_config& config) {
  return block_pool::validate(config.pool);
}

paged_cache::paged_cache(const paged_cache_config& config)
    : config_(config), pool_(config.pool), kernels_(best_kernels()) {
  half_scratch_.resize(shape().head_values());
  if (std::has_single_bit(block_size())) block_shift_ = std::countr_zero(block_size());
  const block_pool_config& p = config.pool;
  if (p.q4_storage == q4_format::q4o && p.q4o_channels > 0) {
    q4o_.on = true;
    q4o_.tile = {p.block_size, p.shape.head_dim, p.q4o_channels};
    const std::uint64_t values = std::uint64_t{p.block_size} * shape().values_per_token();
    q4o_.side_offset = block_layout(precision::q4, values).scale_bytes;
    q4o_.record_bytes = q4o_side_bytes(p.block_size, p.q4o_channels);
  }
  q3_.key_tile = {p.block_size, p.shape.head_dim, p.q4o_channels};
  q3_.side_offset = std::size_t{p.block_size} * shape().values_per_token() / p.shape.head_dim * sizeof(fp16_bits);
  q3_.record_bytes = q4o_side_bytes(p.block_size, p.q4o_channels);
}

sequence_id paged_cache::create_sequence() {
  sequence_id id;
  if (!free_ids_.empty()) {
    id = free_ids_.top();
    free_ids_.pop();
  } else {
    id = static_cast<sequence_id>(seqs_.size());
    seqs_.emplace_back();
  }
  sequence_blocks& s = seqs_[static_cast<std::size_t>(id)];
  s.table.clear();  // keeps its capacity for the next user of this id
  s.length = 0;
  s.first_block = 0;
  s.scan = {};
  s.alive = true;
  return id;
}

expected<void, cache_error> paged_cache::drop_sequence(sequence_id seq, retention keep,
                                                       std::vector<block_id>* cached) {
  sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  // `cached` is sized for every block up front and cut back after: a push_back per block was a
  // call each (a whole request's blocks come through here when it ends).
  const std::size_t had = cached != nullptr ? cached->size() : 0;
  if (cached != nullptr) cached->resize(had + s->table.size());
  std::size_t kept = had;
  for (std::size_t i = s->table.size(); i-- > 0;) {
    const block_id b = s->table[i];
    const bool cache = keep == retention::cache_full_blocks && pool_.fill(b) == block_size();
    if (pool_.release(b, seq, cache) && cache && cached != nullptr) (*cached)[kept++] = b;
  }
  if (cached != nullptr) cached->resize(kept);
  s->table.clear();
  s->alive = false;
  free_ids_.push(seq);
  return {};
}

bool paged_cache::contains(sequence_id seq) const noexcept { return find(seq) != nullptr; }

std::vector<sequence_id> paged_cache::sequences() const {
  std::vector<sequence_id> ids;
  for (std::size_t i = 0; i < seqs_.size(); ++i) {
    if (seqs_[i].alive) ids.push_back(static_cast<sequence_id>(i));
  }
  return ids;
}

expected<std::uint32_t, cache_error> paged_cache::length(sequence_id seq) const {
  const sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  return s->length;
}

expected<std::uint32_t, cache_error> paged_cache::capacity(sequence_id seq) const {
  const sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  return static_cast<std::uint32_t>((s->first_block + s->table.size()) * block_size());
}

expected<std::uint32_t, cache_error> paged_cache::first_block(sequence_id seq) const {
  const sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  return s->first_block;
}

expected<std::span<const block_id>, cache_error> paged_cache::block_table(sequence_id seq) const {
  const sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  return std::span<const block_id>(s->table);
}

expected<void, cache_error> paged_cache::ensure_capacity(sequence_id seq, std::uint32_t tokens) {
  sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  const std::uint64_t have = s->first_block + s->table.size();
  const std::uint64_t need = (std::uint64_t{tokens} + block_size() - 1) / block_size();
  if (need <= have) return {};
  // Plan: check that every block fits before taking any, so a failure changes nothing.
  if (pool_.allocatable(precision::fp16) < need - have) {
    return unexpected{cache_error::out_of_memory};
  }
  // Room first (geometric, as push_back would grow), so nothing below can throw half-way.
  const std::size_t entries = need - s->first_block;
  if (s->table.capacity() < entries) s->table.reserve(std::max(entries, 2 * s->table.capacity()));
  for (std::uint64_t b = have; b < need; ++b) {
    s->table.push_back(*pool_.allocate(precision::fp16, seq, static_cast<std::int32_t>(b)));
  }
  return {};
}

expected<block_id, cache_error> paged_cache::append_block(sequence_id seq, precision tier) {
  sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  const auto logical = static_cast<std::int32_t>(s->first_block + s->table.size());
  auto b = pool_.allocate(tier, seq, logical);
  if (b) s->table.push_back(*b);
  return b;
}

expected<std::uint32_t, cache_error> paged_cache::append_blocks(sequence_id seq, precision tier,
                                                                std::uint32_t count) {
  sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  const auto logical = static_cast<std::int32_t>(s->first_block + s->table.size());
  return pool_.allocate_run(tier, seq, logical, count, s->table);
}

expected<void, cache_error> paged_cache::append_shared(sequence_id seq, block_id b) {
  sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  assert(pool_.is_live(b));
  pool_.retain(b, seq, static_cast<std::int32_t>(s->first_block + s->table.size()));
  s->table.push_back(b);
  return {};
}

expected<void, cache_error> paged_cache::pop_block(sequence_id seq) {
  sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  if (s->table.empty()) return unexpected{cache_error::position_out_of_range};
  pool_.release(s->table.back(), seq, false);
  s->table.pop_back();
  s->length = std::min<std::uint32_t>(
      s->length, static_cast<std::uint32_t>((s->first_block + s->table.size()) * block_size()));
  return {};
}

expected<void, cache_error> paged_cache::advance_many(sequence_id seq, sequence_blocks& s,
                                                      std::uint32_t tokens) {
  const std::uint64_t end = std::uint64_t{s.length} + tokens;
  if (end > (s.first_block + s.table.size()) * std::uint64_t{block_size()}) {
    return unexpected{cache_error::position_out_of_range};
  }
  grow_length(s, static_cast<std::uint32_t>(end));
  if (config_.max_tokens != 0) apply_window(seq, s);
  return {};
}

void paged_cache::apply_window(sequence_id seq, sequence_blocks& s) {
  if (config_.max_tokens == 0 || s.length <= config_.max_tokens) return;
  const std::uint64_t keep_from = s.length - config_.max_tokens;
  std::size_t drop = 0;
  while (drop < s.table.size() && (s.first_block + drop + 1) * std::uint64_t{block_size()} <= keep_from) {
    ++drop;
  }
  if (drop == 0) return;
  for (std::size_t i = drop; i-- > 0;) pool_.release(s.table[i], seq, false);
  s.table.erase(s.table.begin(), s.table.begin() + static_cast<std::ptrdiff_t>(drop));
  s.first_block += static_cast<std::uint32_t>(drop);
}

std::size_t paged_cache::token_offset(std::uint32_t token, std::uint32_t layer) const noexcept {
  return (std::size_t{token} * shape().layers + layer) * 2 * shape().head_values();
}

void paged_cache::store_token(const block_data& d, std::uint32_t token, std::uint32_t layer,
                              std::uint32_t written, std::span<const float> k, std::span<const float> v,
                              fp16_bits* scratch) const {
  const std::size_t offset = token_offset(token, layer);
  if (d.tier == precision::q3) {
    store_q3_token(d, token, layer, written, k, v);
    return;
  }
  if (is_q4o(d.tier)) {
    store_q4o_key(d, token, layer, written, k);
  } else {
    store(d, offset, k, scratch);
  }
  store(d, offset + shape().head_values(), v, scratch);  // values are plain q4 in q4o too
}

void paged_cache::store(const block_data& d, std::size_t offset, std::span<const float> values,
                        fp16_bits* scratch) const {
  if (d.tier == precision::fp16) {
    kernels_.f32_to_fp16(values.data(), reinterpret_cast<fp16_bits*>(d.payload) + offset,
                         values.size());
    return;
  }
  kernels_.f32_to_fp16(values.data(), scratch, values.size());
  const std::size_t group = offset / group_size;
  kernels_.quantize[ordinal(d.tier)](scratch, values.size() / group_size,
                                     d.payload + group * payload_bytes_per_group(d.tier),
                                     d.scales + group * scale_halves_per_group(d.tier));
}

void paged_cache::load(const block_data& d, std::size_t offset, std::span<float> values) const {
  if (d.tier == precision::q3) {
    load_q3(d.payload, d.scales, offset, values.data());
    return;
  }
  const std::size_t group = offset / group_size;
  kernels_.dequantize[ordinal(d.tier)](d.payload + group * payload_bytes_per_group(d.tier),
                                       d.scales + group * scale_halves_per_group(d.tier),
                                       values.size() / group_size, values.data());
}

expected<void, cache_error> paged_cache::write(sequence_id seq, std::uint32_t layer,
                                               std::uint32_t pos, std::span<const float> k,
                                               std::span<const float> v) {
  sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  const std::uint64_t head_values = shape().head_values();
  if (layer >= shape().layers || k.size() != head_values || v.size() != head_values) {
    return unexpected{cache_error::dimension_mismatch};
  }
  const std::uint32_t block = block_of(pos);
  if (block < s->first_block || block - s->first_block >= s->table.size()) {
    return unexpected{cache_error::position_out_of_range};
  }
  if (config_.pool.mode == payload_mode::data) {
    const block_id id = s->table[block - s->first_block];
    store_token(pool_.data(id), pos - block * block_size(), layer, pool_.fill(id), k, v,
                half_scratch_.data());
  }
  if (pos >= s->length) {
    grow_length(*s, pos + 1);
    apply_window(seq, *s);
  }
  return {};
}

expected<void, cache_error> paged_cache::store_kv(sequence_id seq, std::uint32_t layer,
                                                  std::uint32_t pos, std::span<const float> k,
                                                  std::span<const float> v,
                                                  std::span<fp16_bits> scratch) const {
  const sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  const std::uint64_t head_values = shape().head_values();
  if (layer >= shape().layers || k.size() != head_values || v.size() != head_values ||
      scratch.size() < head_values) {
    return unexpected{cache_error::dimension_mismatch};
  }
  const std::uint32_t block = block_of(pos);
  if (config_.pool.mode != payload_mode::data || block < s->first_block ||
      block - s->first_block >= s->table.size()) {
    return unexpected{cache_error::position_out_of_range};
  }
  const block_id id = s->table[block - s->first_block];
  store_token(pool_.data(id), pos - block * block_size(), layer, pool_.fill(id), k, v, scratch.data());
  return {};
}

expected<void, cache_error> paged_cache::read(sequence_id seq, std::uint32_t layer,
                                              std::uint32_t pos, std::span<float> k,
                                              std::span<float> v) {
  const sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  const std::uint64_t head_values = shape().head_values();
  if (layer >= shape().layers || k.size() != head_values || v.size() != head_values) {
    return unexpected{cache_error::dimension_mismatch};
  }
  const std::uint32_t block = block_of(pos);
  if (pos >= s->length || block < s->first_block) {
    return unexpected{cache_error::position_out_of_range};
  }
  if (config_.pool.mode != payload_mode::data) return unexpected{cache_error::position_out_of_range};
  const block_id id = s->table[block - s->first_block];
  if (id != last_read_.id || pool_.layout_version() != last_read_.version) resolve_for_read(id);
  // K then V of one (token, layer) are adjacent whole groups (head_values is a multiple of 32).
  const std::size_t groups = head_values / group_size;
  const std::size_t first = token_offset(pos - block * block_size(), layer) / group_size;
  const resolved_block& r = last_read_;
  if (r.q3) {
    const std::size_t offset = token_offset(pos - block * block_size(), layer);
    load_q3(r.payload, r.scales, offset, k.data());
    load_q3(r.payload, r.scales, offset + head_values, v.data());
    restore_q3_keys(r.scales, pos - block * block_size(), layer, k.data());
    return {};
  }
  r.dequantize(r.payload + first * r.payload_bytes_per_group, r.scales + first * r.scale_halves_per_group,
               groups, k.data());
  r.dequantize(r.payload + (first + groups) * r.payload_bytes_per_group,
               r.scales + (first + groups) * r.scale_halves_per_group, groups, v.data());
  if (r.q4o) restore_q4o_keys(r.scales, pos - block * block_size(), layer, k.data());
  return {};
}

void paged_cache::resolve_for_read(block_id id) {
  const block_data d = pool_.data(id);
  const bool q3 = d.tier == precision::q3;
  last_read_ = {id,
                pool_.layout_version(),
                d.payload,
                d.scales,
                q3 ? nullptr : kernels_.dequantize[ordinal(d.tier)],
                payload_bytes_per_group(d.tier),
                scale_halves_per_group(d.tier),
                is_q4o(d.tier),
                q3};
}

expected<std::uint32_t, cache_error> paged_cache::read_block(sequence_id seq, std::uint32_t index,
                                                             std::uint32_t layer,
                                                             std::span<float> k,
                                                             std::span<float> v) const {
  const sequence_blocks* s = find(seq);
  if (s == nullptr) return unexpected{cache_error::sequence_not_found};
  const std::size_t head_values = shape().head_values();
  const std::size_t room = block_size() * head_values;
  if (layer >= shape().layers || k.size() < room || v.size() < room) {
    return unexpected{cache_error::dimension_mismatch};
  }
  if (index >= s->table.size()) return unexpected{cache_error::position_out_of_range};
  if (config_.pool.mode != payload_mode::data) return unexpected{cache_error::position_out_of_range};
  const std::uint64_t start = std::uint64_t{s->first_block + index} * block_size();
  const auto tokens = static_cast<std::uint32_t>(
      s->length <= start ? 0 : std::min<std::uint64_t>(block_size(), s->length - start));
  const block_data d = pool_.data(s->table[index]);
  for (std::uint32_t t = 0; t < tokens; ++t) {
    const std::size_t offset = token_offset(t, layer);
    load(d, offset, k.subspan(t * head_values, head_values));
    load(d, offset + head_values, v.subspan(t * head_values, head_values));
    if (is_q4o(d.tier)) restore_q4o_keys(d.scales, t, layer, k.data() + t * head_values);
    if (d.tier == precision::q3) restore_q3_keys(d.scales, t, layer, k.data() + t * head_values);
  }
  return tokens;
}

std::size_t paged_cache::metadata_bytes() const noexcept {
  std::size_t bytes = pool_.metadata_bytes() + sizeof(*this) - sizeof(pool_) +
                      seqs_.capacity() * sizeof(sequence_blocks) +
                      free_ids_.size() * sizeof(sequence_id) +
                      (half_scratch_.capacity() + staging_.capacity()) * sizeof(fp16_bits);
  for (const auto& s : seqs_) bytes += s.table.capacity() * sizeof(block_id);
  return bytes;
}

std::string paged_cache::audit() const {
  if (std::string why = pool_.audit(); !why.empty()) return "pool: " + why;
  std::vector<std::uint32_t> refs(pool_.block_id_limit(), 0);
  for (std::size_t i = 0; i < seqs_.size(); ++i) {
    const sequence_blocks& s = seqs_[i];
    const std::string name = "sequence " + std::to_string(i);
    if (!s.alive) {
      if (!s.table.empty()) return name + ": dropped but keeps blocks";
      continue;
    }
    if (s.length > (s.first_block + s.table.size()) * std::uint64_t{block_size()}) {
      return name + ": length beyond capacity";
    }
    for (const block_id b : s.table) {
      if (!pool_.is_live(b)) return name + ": table holds a free block";
      if (pool_.is_cached(b)) return name + ": table holds a cached block";
      if (pool_.fill(b) > block_size()) return name + ": block fill beyond block_size";
      ++refs[b];
    }
  }
  for (block_id b = 0; b < pool_.block_id_limit(); ++b) {
    if (pool_.is_live(b) && pool_.refcount(b) != refs[b]) {
      return "block " + std::to_string(b) + ": refcount " + std::to_string(pool_.refcount(b)) +
             " but " + std::to_string(refs[b]) + " table references";
    }
  }
  return {};
}

}  // namespace kvscope
