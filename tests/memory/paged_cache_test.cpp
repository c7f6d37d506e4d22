#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "memory/paged_cache.hpp"
#include "memory_test_support.hpp"

namespace kvscope {
namespace {

using test::cache_config;

std::vector<float> ramp(std::size_t n, float start) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + 0.01f * static_cast<float>(i);
  return v;
}

TEST(PagedCache, SequenceIdsAreSmallAndReused) {
  paged_cache cache(cache_config(8));
  EXPECT_EQ(cache.create_sequence(), 0);
  EXPECT_EQ(cache.create_sequence(), 1);
  EXPECT_EQ(cache.create_sequence(), 2);
  ASSERT_TRUE(cache.drop_sequence(1));
  ASSERT_TRUE(cache.drop_sequence(0));
  EXPECT_EQ(cache.sequences(), std::vector<sequence_id>{2});
  EXPECT_EQ(cache.create_sequence(), 0);  // lowest free id first
  EXPECT_EQ(cache.create_sequence(), 1);
  EXPECT_EQ(cache.create_sequence(), 3);
  EXPECT_TRUE(cache.contains(3));
  EXPECT_FALSE(cache.contains(4));
  EXPECT_FALSE(cache.contains(-1));
}

TEST(PagedCache, EveryErrorIsReachable) {
  paged_cache cache(cache_config(4));
  const auto hv = cache.shape().head_values();
  std::vector<float> k(hv), v(hv), wrong(hv + 1);
  const sequence_id ghost = 42;
  EXPECT_EQ(cache.write(ghost, 0, 0, k, v).error(), cache_error::sequence_not_found);
  EXPECT_EQ(cache.read(ghost, 0, 0, k, v).error(), cache_error::sequence_not_found);
  EXPECT_EQ(cache.length(ghost).error(), cache_error::sequence_not_found);
  EXPECT_EQ(cache.capacity(ghost).error(), cache_error::sequence_not_found);
  EXPECT_EQ(cache.first_block(ghost).error(), cache_error::sequence_not_found);
  EXPECT_EQ(cache.block_table(ghost).error(), cache_error::sequence_not_found);
  EXPECT_EQ(cache.ensure_capacity(ghost, 1).error(), cache_error::sequence_not_found);
  EXPECT_EQ(cache.append_block(ghost, precision::q8).error(), cache_error::sequence_not_found);
  EXPECT_EQ(cache.advance(ghost, 1).error(), cache_error::sequence_not_found);
  EXPECT_EQ(cache.pop_block(ghost).error(), cache_error::sequence_not_found);
  EXPECT_EQ(cache.drop_sequence(ghost).error(), cache_error::sequence_not_found);
  EXPECT_EQ(cache.read_block(ghost, 0, 0, k, v).error(), cache_error::sequence_not_found);

  const sequence_id s = cache.create_sequence();
  EXPECT_EQ(cache.write(s, 0, 0, k, v).error(), cache_error::position_out_of_range);  // no block
  ASSERT_TRUE(cache.ensure_capacity(s, 20));
  EXPECT_EQ(*cache.capacity(s), 32u);
  EXPECT_EQ(cache.write(s, 0, 32, k, v).error(), cache_error::position_out_of_range);
  EXPECT_EQ(cache.write(s, 0, 0, wrong, v).error(), cache_error::dimension_mismatch);
  EXPECT_EQ(cache.write(s, 0, 0, k, wrong).error(), cache_error::dimension_mismatch);
  EXPECT_EQ(cache.write(s, 2, 0, k, v).error(), cache_error::dimension_mismatch);  // layer 2 of 2
  ASSERT_TRUE(cache.write(s, 1, 3, k, v));
  EXPECT_EQ(cache.read(s, 0, 4, k, v).error(), cache_error::position_out_of_range);  // length 4
  EXPECT_EQ(cache.read(s, 0, 0, wrong, v).error(), cache_error::dimension_mismatch);
  EXPECT_EQ(cache.read_block(s, 2, 0, k, v).error(), cache_error::dimension_mismatch);  // room
  std::vector<float> kb(16 * hv), vb(16 * hv);
  EXPECT_EQ(cache.read_block(s, 2, 0, kb, vb).error(), cache_error::position_out_of_range);
  EXPECT_EQ(cache.advance(s, 29).error(), cache_error::position_out_of_range);  // 4 + 29 > 32
  EXPECT_EQ(cache.ensure_capacity(s, 16 * 5).error(), cache_error::out_of_memory);
  ASSERT_TRUE(cache.append_block(s, precision::fp16));
  ASSERT_TRUE(cache.append_block(s, precision::fp16));
  EXPECT_EQ(cache.append_block(s, precision::fp16).error(), cache_error::out_of_memory);
  const sequence_id empty = cache.create_sequence();
  EXPECT_EQ(cache.pop_block(empty).error(), cache_error::position_out_of_range);
  EXPECT_EQ(describe(cache_error::out_of_memory), "out of memory");
  EXPECT_EQ(describe(cache_error::dimension_mismatch), "dimension mismatch");
  EXPECT_EQ(describe(cache_error::position_out_of_range), "position out of range");
  EXPECT_EQ(describe(cache_error::sequence_not_found), "sequence not found");
  EXPECT_EQ(cache.audit(), "");
}

TEST(PagedCache, MultiBlockOutOfMemoryTakesNothing) {
  paged_cache cache(cache_config(5));
  const sequence_id a = cache.create_sequence();
  const sequence_id b = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(a, 48));  // 3 frames
  const auto before = cache.pool().snapshot();
  EXPECT_EQ(cache.ensure_capacity(b, 48).error(), cache_error::out_of_memory);  // 3 > 2 free
  EXPECT_EQ(cache.pool().snapshot().frames, before.frames);
  EXPECT_EQ(*cache.capacity(b), 0u);
  EXPECT_TRUE(cache.ensure_capacity(b, 32));
  EXPECT_EQ(cache.audit(), "");
}

TEST(PagedCache, WriteReadRoundTripPerTier) {
  paged_cache cache(cache_config(16));
  const auto hv = cache.shape().head_values();
  for (precision p : group_levels) {  // q3: memory/q3_cache_test.cpp
    const sequence_id s = cache.create_sequence();
    ASSERT_TRUE(cache.append_block(s, p));
    ASSERT_TRUE(cache.append_block(s, p));
    for (std::uint32_t pos = 0; pos < 32; ++pos) {
      for (std::uint32_t layer = 0; layer < 2; ++layer) {
        const auto k = ramp(hv, -1.0f + static_cast<float>(pos) * 0.1f + static_cast<float>(layer));
        const auto v = ramp(hv, 2.0f - static_cast<float>(pos) * 0.05f);
        ASSERT_TRUE(cache.write(s, layer, pos, k, v));
      }
    }
    EXPECT_EQ(*cache.length(s), 32u);
    std::vector<float> k(hv), v(hv);
    for (std::uint32_t pos = 0; pos < 32; ++pos) {
      for (std::uint32_t layer = 0; layer < 2; ++layer) {
        const auto ek = ramp(hv, -1.0f + static_cast<float>(pos) * 0.1f + static_cast<float>(layer));
        const auto ev = ramp(hv, 2.0f - static_cast<float>(pos) * 0.05f);
        ASSERT_TRUE(cache.read(s, layer, pos, k, v));
        // Bounds: fp16 rounding; half a q8 step (amax <= 4.5 over 127) or q4 step (a group's
        // range is 0.31, over 15); e4m3's relative half ulp, 2^-4.
        const auto tol = [p](float x) {
          switch (p) {
            case precision::fp16: return 2e-3f;
            case precision::q8: return 0.02f;
            case precision::fp8: return 0.0625f * std::fabs(x) + 1e-3f;
            case precision::q4: return 0.015f;
            case precision::q3: break;
          }
          return 0.0f;
        };
        for (std::size_t i = 0; i < hv; ++i) {
          ASSERT_NEAR(k[i], ek[i], tol(ek[i])) << tag(p) << " pos " << pos << " layer " << layer;
          ASSERT_NEAR(v[i], ev[i], tol(ev[i])) << tag(p) << " pos " << pos << " layer " << layer;
          if (p == precision::fp16) {
            ASSERT_EQ(k[i], fp16_to_f32(f32_to_fp16(ek[i])));
          }
        }
      }
    }
  }
  EXPECT_EQ(cache.audit(), "");
}

// read() remembers the block it resolved last; a relocated block, or a freed id given to a new
// block, must not be read from where the remembered one was. read_block remembers nothing, so
// the two must agree bit for bit.
TEST(PagedCache, ReadFollowsRelocatedAndReusedBlocks) {
  paged_cache cache(cache_config(16));
  const auto hv = cache.shape().head_values();
  std::vector<float> k(hv), v(hv), block_k(16 * hv), block_v(16 * hv);
  const auto agree_with_read_block = [&](sequence_id s, std::uint32_t pos) {
    ASSERT_TRUE(cache.read(s, 0, pos, k, v));
    ASSERT_TRUE(cache.read_block(s, pos / 16, 0, block_k, block_v));
    for (std::size_t i = 0; i < hv; ++i) {
      ASSERT_EQ(k[i], block_k[(pos % 16) * hv + i]) << "pos " << pos << " value " << i;
      ASSERT_EQ(v[i], block_v[(pos % 16) * hv + i]) << "pos " << pos << " value " << i;
    }
  };
  const sequence_id s = cache.create_sequence();
  for (int b = 0; b < 3; ++b) ASSERT_TRUE(cache.append_block(s, precision::fp16));
  // 48 tokens: only block 0 lies outside the hot tail of 32, so migrate moves it alone.
  for (std::uint32_t pos = 0; pos < 48; ++pos) {
    ASSERT_TRUE(cache.write(s, 0, pos, ramp(hv, 0.37f * static_cast<float>(pos)), ramp(hv, -1.0f)));
  }
  agree_with_read_block(s, 3);
  const block_id first = (*cache.block_table(s))[0];
  ASSERT_EQ(cache.migrate(precision::q4, 1).blocks, 1u);
  ASSERT_EQ(cache.pool().tier(first), precision::q4);
  agree_with_read_block(s, 3);  // now q4 values, from the block's new place
  EXPECT_NE(k[1], fp16_to_f32(f32_to_fp16(0.37f * 3 + 0.01f)));  // not the old fp16 bytes

  ASSERT_TRUE(cache.drop_sequence(s));
  const sequence_id t = cache.create_sequence();
  ASSERT_TRUE(cache.append_block(t, precision::fp16));
  ASSERT_EQ((*cache.block_table(t))[0], first);  // the freed id is reused
  ASSERT_TRUE(cache.write(t, 0, 3, ramp(hv, 5.0f), ramp(hv, 6.0f)));
  agree_with_read_block(t, 3);
  EXPECT_EQ(k[0], 5.0f);
  EXPECT_EQ(cache.audit(), "");
}

TEST(PagedCache, LengthsAndFillFollowWrites) {
  paged_cache cache(cache_config(8));
  const sequence_id s = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(s, 40));
  std::vector<float> k(cache.shape().head_values()), v(k.size());
  ASSERT_TRUE(cache.write(s, 0, 20, k, v));
  const auto table = *cache.block_table(s);
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(*cache.length(s), 21u);
  EXPECT_EQ(cache.pool().fill(table[0]), 16u);
  EXPECT_EQ(cache.pool().fill(table[1]), 5u);
  EXPECT_EQ(cache.pool().fill(table[2]), 0u);
  ASSERT_TRUE(cache.advance(s, 15));
  EXPECT_EQ(*cache.length(s), 36u);
  EXPECT_EQ(cache.pool().fill(table[2]), 4u);
  const auto info = cache.pool().info(table[2]);
  EXPECT_EQ(info.owner, s);
  EXPECT_EQ(info.logical_index, 2);
  EXPECT_DOUBLE_EQ(cache.utilization(), cache.pool().occupancy());
}

// advance(s, 1) has its own inline path (every decode token): token by token it must leave the
// lengths and fills one advance over the same tokens leaves, and refuse the token past capacity.
TEST(PagedCache, AdvanceTokenByTokenEqualsOneAdvance) {
  for (const std::uint32_t window : {0u, 24u}) {
    SCOPED_TRACE(window);
    paged_cache one(cache_config(8, payload_mode::accounting, 16, 32, window));
    paged_cache each(cache_config(8, payload_mode::accounting, 16, 32, window));
    const sequence_id a = one.create_sequence(), b = each.create_sequence();
    ASSERT_TRUE(one.ensure_capacity(a, 48));
    ASSERT_TRUE(each.ensure_capacity(b, 48));
    ASSERT_TRUE(one.advance(a, 48));
    for (int t = 0; t < 48; ++t) ASSERT_TRUE(each.advance(b, 1));
    EXPECT_EQ(each.advance(b, 1).error(), cache_error::position_out_of_range);
    EXPECT_EQ(*each.length(b), *one.length(a));
    EXPECT_EQ(*each.first_block(b), *one.first_block(a));
    const auto ta = *one.block_table(a);
    const auto tb = *each.block_table(b);
    ASSERT_EQ(ta.size(), tb.size());
    for (std::size_t i = 0; i < ta.size(); ++i) EXPECT_EQ(each.pool().fill(tb[i]), one.pool().fill(ta[i]));
    EXPECT_EQ(each.audit(), "");
  }
  paged_cache cache(cache_config(8, payload_mode::accounting));
  const sequence_id s = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(s, 20));
  ASSERT_TRUE(cache.advance(s, 17));
  ASSERT_TRUE(cache.advance(s, 1));
  EXPECT_EQ(cache.pool().fill((*cache.block_table(s))[1]), 2u);
}

TEST(PagedCache, SlidingWindowReleasesOldBlocks) {
  paged_cache cache(cache_config(8, payload_mode::data, 16, 32, 40));
  const sequence_id s = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(s, 112));
  std::vector<float> k(cache.shape().head_values(), 1.0f), v(k.size(), 2.0f);
  for (std::uint32_t pos = 0; pos < 100; ++pos) ASSERT_TRUE(cache.write(s, 0, pos, k, v));
  // Positions before 100 - 40 = 60 go; blocks wholly before it (0, 1, 2) are released.
  EXPECT_EQ(*cache.first_block(s), 3u);
  EXPECT_EQ(cache.block_table(s)->size(), 4u);
  EXPECT_EQ(cache.pool().usage().used_frames, 4u);
  EXPECT_EQ(cache.read(s, 0, 47, k, v).error(), cache_error::position_out_of_range);
  EXPECT_TRUE(cache.read(s, 0, 48, k, v));
  EXPECT_EQ(cache.write(s, 0, 10, k, v).error(), cache_error::position_out_of_range);
  EXPECT_EQ(*cache.capacity(s), 112u);
  EXPECT_EQ(cache.audit(), "");
}

TEST(PagedCache, PrefixSharingCachingAndEviction) {
  paged_cache cache(cache_config(8));
  const sequence_id a = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(a, 40));
  ASSERT_TRUE(cache.advance(a, 40));  // blocks 0, 1 full; block 2 holds 8 tokens
  const std::vector<block_id> table(cache.block_table(a)->begin(), cache.block_table(a)->end());
  const sequence_id b = cache.create_sequence();
  ASSERT_TRUE(cache.append_shared(b, table[0]));
  ASSERT_TRUE(cache.append_shared(b, table[1]));
  EXPECT_EQ(cache.pool().refcount(table[0]), 2u);
  EXPECT_EQ(cache.audit(), "");

  std::vector<block_id> cached;
  ASSERT_TRUE(cache.drop_sequence(a, retention::cache_full_blocks, &cached));
  EXPECT_TRUE(cached.empty());  // the full blocks are still held by b; the partial one is freed
  EXPECT_FALSE(cache.pool().is_live(table[2]));
  EXPECT_EQ(cache.pool().info(table[0]).owner, no_sequence);
  ASSERT_TRUE(cache.drop_sequence(b, retention::cache_full_blocks, &cached));
  EXPECT_EQ(cached, (std::vector<block_id>{table[1], table[0]}));  // last block first
  EXPECT_TRUE(cache.pool().is_cached(table[0]));
  EXPECT_EQ(cache.pool().usage().used_frames, 2u);

  const sequence_id c = cache.create_sequence();
  ASSERT_TRUE(cache.append_shared(c, table[0]));  // a prefix hit revives a cached block
  EXPECT_FALSE(cache.pool().is_cached(table[0]));
  EXPECT_EQ(cache.pool().info(table[0]).owner, c);
  cache.evict(table[1]);
  EXPECT_FALSE(cache.pool().is_live(table[1]));
  ASSERT_TRUE(cache.pop_block(c));  // undo the append: the block is freed, not cached
  EXPECT_FALSE(cache.pool().is_live(table[0]));
  EXPECT_EQ(cache.pool().bytes_in_use(), 0u);
  EXPECT_EQ(cache.audit(), "");
}

TEST(PagedCache, PopBlockCutsLength) {
  paged_cache cache(cache_config(4));
  const sequence_id s = cache.create_sequence();
  ASSERT_TRUE(cache.ensure_capacity(s, 30));
  ASSERT_TRUE(cache.advance(s, 30));
  ASSERT_TRUE(cache.pop_block(s));
  EXPECT_EQ(*cache.length(s), 16u);
  EXPECT_EQ(*cache.capacity(s), 16u);
  EXPECT_EQ(cache.audit(), "");
}

TEST(PagedCache, AccountingModeTracksWithoutData) {
  paged_cache cache(cache_config(4, payload_mode::accounting));
  const sequence_id s = cache.create_sequence();
  ASSERT_TRUE(cache.append_block(s, precision::q4));
  std::vector<float> k(cache.shape().head_values()), v(k.size());
  ASSERT_TRUE(cache.write(s, 1, 5, k, v));
  EXPECT_EQ(*cache.length(s), 6u);
  EXPECT_EQ(cache.read(s, 1, 5, k, v).error(), cache_error::position_out_of_range);
  EXPECT_EQ(cache.pool().bytes_in_use(), cache.pool().frame_bytes() + 1024);
  EXPECT_EQ(cache.audit(), "");
}

}  // namespace
}  // namespace kvscope

namespace kvscope {
namespace {

// store_kv + advance (the engine's parallel path) leaves exactly what write() leaves.
TEST(PagedCache, StoreKvThenAdvanceEqualsWrite) {
  paged_cache a(test::cache_config(8)), b(test::cache_config(8));
  const auto hv = a.shape().head_values();
  const sequence_id sa = a.create_sequence(), sb = b.create_sequence();
  ASSERT_TRUE(a.append_block(sa, precision::q8).has_value());
  ASSERT_TRUE(a.append_block(sa, precision::fp16).has_value());
  ASSERT_TRUE(b.append_block(sb, precision::q8).has_value());
  ASSERT_TRUE(b.append_block(sb, precision::fp16).has_value());
  std::vector<fp16_bits> scratch(hv);
  const std::uint32_t tokens = a.block_size() + 5;
  for (std::uint32_t pos = 0; pos < tokens; ++pos) {
    for (std::uint32_t layer = 0; layer < a.shape().layers; ++layer) {
      const auto k = ramp(hv, 0.1f * static_cast<float>(pos + layer));
      const auto v = ramp(hv, -0.2f * static_cast<float>(pos));
      ASSERT_TRUE(a.write(sa, layer, pos, k, v).has_value());
      ASSERT_TRUE(b.store_kv(sb, layer, pos, k, v, scratch).has_value());
    }
  }
  EXPECT_EQ(*b.length(sb), 0u);  // bytes only
  ASSERT_TRUE(b.advance(sb, tokens).has_value());
  EXPECT_EQ(*a.length(sa), *b.length(sb));
  std::vector<float> ka(hv), va(hv), kb(hv), vb(hv);
  for (std::uint32_t pos = 0; pos < tokens; ++pos) {
    ASSERT_TRUE(a.read(sa, 1, pos, ka, va).has_value());
    ASSERT_TRUE(b.read(sb, 1, pos, kb, vb).has_value());
    EXPECT_EQ(ka, kb);
    EXPECT_EQ(va, vb);
  }
  std::vector<fp16_bits> small(hv - 1);
  EXPECT_EQ(b.store_kv(sb, 0, 0, ka, va, small).error(), cache_error::dimension_mismatch);
  EXPECT_EQ(b.store_kv(sb, 0, 99, ka, va, scratch).error(), cache_error::position_out_of_range);
}

}  // namespace
}  // namespace kvscope
