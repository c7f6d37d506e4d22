// Invariants of the paged cache under random operation sequences (rapidcheck). After every
// operation, audit() recomputes everything from scratch: every frame free or owned by live
// blocks, no slot handed out twice, bytes in use + free = budget, refcounts = table references.
// Calls that fail with out_of_memory must change nothing. In data mode, a model of what was
// written to each physical block checks that every read returns it (within the tier's error).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "memory/paged_cache.hpp"
#include "memory/synthetic_kv.hpp"
#include "memory_test_support.hpp"

namespace kvscope {
namespace {

using op = std::tuple<int, int, int>;  // kind, two arguments interpreted against the state

struct driver {
  paged_cache cache;
  bool data;
  synthetic_kv gen{.seed = 12};
  std::map<block_id, std::vector<int>> written;  // data mode: write tag per token, -1 = none
  int next_tag = 0;

  driver(const paged_cache_config& config)
      : cache(config), data(config.pool.mode == payload_mode::data) {}

  std::vector<sequence_id> live() const { return cache.sequences(); }

  std::vector<block_id> blocks(bool cached_only) const {
    std::vector<block_id> out;
    for (block_id b = 0; b < cache.pool().block_id_limit(); ++b) {
      if (cache.pool().is_live(b) && (!cached_only || cache.pool().is_cached(b))) out.push_back(b);
    }
    return out;
  }

  void fill_values(int tag, std::uint32_t layer, std::vector<float>& k, std::vector<float>& v) const {
    gen.fill(kv_part::key, cache.shape(), static_cast<std::uint64_t>(tag), 0, layer, k);
    gen.fill(kv_part::value, cache.shape(), static_cast<std::uint64_t>(tag), 0, layer, v);
  }

  void write(sequence_id s, std::uint32_t pos) {
    const auto table = *cache.block_table(s);
    const std::uint32_t bs = cache.block_size();
    const std::uint32_t block = pos / bs;
    const std::uint32_t first = *cache.first_block(s);
    if (block < first || block - first >= table.size()) return;
    const block_id b = table[block - first];
    if (cache.pool().refcount(b) > 1) return;  // the model keeps shared blocks read-only
    const int tag = next_tag++;
    std::vector<float> k(cache.shape().head_values()), v(k.size());
    for (std::uint32_t layer = 0; layer < cache.shape().layers; ++layer) {
      fill_values(tag, layer, k, v);
      RC_ASSERT(cache.write(s, layer, pos, k, v).has_value());
    }
    if (data) {
      auto& tokens = written[b];
      tokens.resize(bs, -1);
      tokens[pos % bs] = tag;
    }
  }

  void apply(const op& o) {
    const auto [kind, x, y] = o;
    const auto seqs = live();
    const bool have = !seqs.empty();
    const sequence_id s = have ? seqs[static_cast<std::size_t>(x) % seqs.size()] : 0;
    const auto before = cache.pool().snapshot();
    switch (kind) {
      case 0: cache.create_sequence(); break;
      case 1:
        if (have) {
          std::vector<block_id> cached;
          RC_ASSERT(cache.drop_sequence(s, y % 2 ? retention::cache_full_blocks : retention::free_all, &cached).has_value());
          for (block_id b : cached) RC_ASSERT(cache.pool().is_cached(b));
        }
        break;
      case 2:
        if (have) {
          const auto r = cache.ensure_capacity(s, *cache.capacity(s) + static_cast<std::uint32_t>(y % 40));
          if (!r) RC_ASSERT(cache.pool().snapshot().frames == before.frames);
        }
        break;
      case 3:
        if (have) {
          const auto r = cache.append_block(s, precision_from_ordinal(y % 4));
          if (!r) RC_ASSERT(cache.pool().snapshot().frames == before.frames);
        }
        break;
      case 4:
        if (have) {
          const auto candidates = blocks(false);
          if (!candidates.empty()) {
            RC_ASSERT(cache.append_shared(s, candidates[static_cast<std::size_t>(y) % candidates.size()]).has_value());
          }
        }
        break;
      case 5: {
        const auto cached = blocks(true);
        if (!cached.empty()) cache.evict(cached[static_cast<std::size_t>(y) % cached.size()]);
        break;
      }
      case 6:
        if (have) (void)cache.advance(s, static_cast<std::uint32_t>(y % 20));
        break;
      case 7:
        if (have) (void)cache.pop_block(s);
        break;
      case 8: {
        const auto r = cache.migrate(precision_from_ordinal(x % 4), static_cast<std::uint32_t>(y % 9));
        if (r.stalled) RC_ASSERT(cache.pool().snapshot().frames == before.frames);
        break;
      }
      default:
        if (have) {
          const std::uint32_t len = *cache.length(s);
          for (int i = 0; i < 1 + y % 8; ++i) write(s, len + static_cast<std::uint32_t>(i));
        }
        break;
    }
    const std::string why = cache.audit();
    RC_ASSERT(why == std::string{});
    for (auto it = written.begin(); it != written.end();) {  // forget freed blocks
      it = cache.pool().is_live(it->first) ? std::next(it) : written.erase(it);
    }
  }

  // Every written token of every table reads back as written, within its tier's error.
  void check_data() {
    std::vector<float> k(cache.shape().head_values()), v(k.size()), ek(k.size()), ev(k.size());
    const std::uint32_t bs = cache.block_size();
    for (sequence_id s : live()) {
      const auto table = *cache.block_table(s);
      const std::uint32_t first = *cache.first_block(s);
      for (std::size_t i = 0; i < table.size(); ++i) {
        const auto it = written.find(table[i]);
        if (it == written.end()) continue;
        const double bound = cache.pool().tier(table[i]) == precision::fp16 ? 1e-3 : 0.3;
        for (std::uint32_t t = 0; t < bs; ++t) {
          const std::uint32_t pos = (first + static_cast<std::uint32_t>(i)) * bs + t;
          if (it->second[t] < 0 || pos >= *cache.length(s)) continue;
          for (std::uint32_t layer = 0; layer < cache.shape().layers; ++layer) {
            RC_ASSERT(cache.read(s, layer, pos, k, v).has_value());
            fill_values(it->second[t], layer, ek, ev);
            double err = 0, ref = 0;
            for (std::size_t c = 0; c < k.size(); ++c) {
              err += (k[c] - ek[c]) * (k[c] - ek[c]) + (v[c] - ev[c]) * (v[c] - ev[c]);
              ref += ek[c] * ek[c] + ev[c] * ev[c];
            }
            RC_ASSERT(std::sqrt(err / ref) < bound);
          }
        }
      }
    }
  }
};

// Weighted towards growing, sharing and migrating, so states get full, shared and mixed-tier.
rc::Gen<std::vector<op>> operations() {
  const auto kind = rc::gen::weightedElement<int>(
      {{3, 0}, {1, 1}, {4, 2}, {4, 3}, {3, 4}, {1, 5}, {3, 6}, {1, 7}, {3, 8}, {4, 9}});
  return rc::gen::resize(150, rc::gen::container<std::vector<op>>(rc::gen::tuple(
                                  kind, rc::gen::inRange(0, 1000), rc::gen::inRange(0, 1000))));
}

// Small pools (a few frames, 4-token blocks) so memory runs out often.
paged_cache_config small_config(payload_mode mode, std::uint32_t frames, std::uint32_t window) {
  return test::cache_config(frames, mode, 4, 8, window);
}

RC_GTEST_PROP(PagedCacheProperties, AccountingInvariantsHold, ()) {
  const auto ops = *operations();
  const auto frames = *rc::gen::inRange<std::uint32_t>(1, 24);
  const auto window = *rc::gen::element<std::uint32_t>(0u, 0u, 12u, 30u);
  driver d(small_config(payload_mode::accounting, frames, window));
  for (const op& o : ops) d.apply(o);
}

RC_GTEST_PROP(PagedCacheProperties, DataSurvivesSharingAndMigration, ()) {
  const auto ops = *operations();
  driver d(small_config(payload_mode::data, *rc::gen::inRange<std::uint32_t>(2, 16), 0));
  for (const op& o : ops) d.apply(o);
  d.check_data();
}

}  // namespace
}  // namespace kvscope
