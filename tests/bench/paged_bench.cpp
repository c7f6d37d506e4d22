// One (sequence, position, layer) slot written and read through the paged cache, on a pool that
// fits in cache (API and kernel cost) and one that does not (memory bound).
#include <benchmark/benchmark.h>

#include <vector>

#include "memory/paged_cache.hpp"

namespace kvscope {
namespace {

struct fixture {
  paged_cache cache;
  std::vector<sequence_id> ids;
  std::vector<float> k, v;
  std::uint32_t tokens;

  fixture(precision p, std::uint32_t seqs, std::uint32_t tokens_per_seq)
      : cache({{{4, 2, 64}, 16, budget(seqs, tokens_per_seq), payload_mode::data, true}, 256, 0}),
        k(128, 0.5f), v(128, -0.25f), tokens(tokens_per_seq) {
    for (std::uint32_t s = 0; s < seqs; ++s) {
      ids.push_back(cache.create_sequence());
      for (std::uint32_t b = 0; b < tokens_per_seq / 16; ++b) (void)cache.append_block(ids.back(), p);
    }
  }
  static std::uint64_t budget(std::uint32_t seqs, std::uint32_t tokens) {
    return (std::uint64_t{seqs} * tokens / 16 + 2) * 16 * 1024 * 2;  // + room for scales
  }
};

void write_bench(benchmark::State& state) {
  fixture f(precision_from_ordinal(static_cast<int>(state.range(0))),
            static_cast<std::uint32_t>(state.range(1)), 512);
  std::size_t slots = 0;
  for (auto _ : state) {
    for (sequence_id s : f.ids) {
      for (std::uint32_t pos = 0; pos < f.tokens; ++pos) {
        for (std::uint32_t layer = 0; layer < 4; ++layer) (void)f.cache.write(s, layer, pos, f.k, f.v);
      }
    }
    slots += f.ids.size() * f.tokens * 4;
  }
  state.counters["ns_per_slot"] = benchmark::Counter(
      static_cast<double>(slots), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void read_bench(benchmark::State& state) {
  fixture f(precision_from_ordinal(static_cast<int>(state.range(0))),
            static_cast<std::uint32_t>(state.range(1)), 512);
  for (sequence_id s : f.ids) (void)f.cache.advance(s, f.tokens);
  std::vector<float> k(128), v(128);
  std::size_t slots = 0;
  for (auto _ : state) {
    for (sequence_id s : f.ids) {
      for (std::uint32_t pos = 0; pos < f.tokens; ++pos) {
        for (std::uint32_t layer = 0; layer < 4; ++layer) (void)f.cache.read(s, layer, pos, k, v);
      }
    }
    benchmark::DoNotOptimize(k.data());
    slots += f.ids.size() * f.tokens * 4;
  }
  state.counters["ns_per_slot"] = benchmark::Counter(
      static_cast<double>(slots), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Args: precision ordinal, sequences (2: 2 MiB of fp16, cache resident; 64: 64 MiB).
BENCHMARK(write_bench)->ArgsProduct({{0, 1, 2, 3}, {2, 64}})->Unit(benchmark::kMillisecond);
BENCHMARK(read_bench)->ArgsProduct({{0, 1, 2, 3}, {2, 64}})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace kvscope
