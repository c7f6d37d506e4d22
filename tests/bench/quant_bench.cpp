// Kernel throughput on cache-resident data (compute cost, no memory bandwidth): bytes/s are
// fp16 input bytes. `kvscope-cli bench quant` measures the DRAM-sized case against memcpy.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

#include "quant/kernels.hpp"
#include "quant/tier_layout.hpp"

namespace kvscope {
namespace {

constexpr std::size_t groups = 1024;  // 64 KiB of fp16

std::vector<fp16_bits> source() {
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  std::vector<fp16_bits> v(groups * group_size);
  for (auto& h : v) h = f32_to_fp16(normal(rng));
  return v;
}

const kernel_set& set_for(const benchmark::State& state) {
  return state.range(1) == 0 || avx2_kernels() == nullptr ? scalar_kernels() : *avx2_kernels();
}

void quantize_bench(benchmark::State& state) {
  const auto p = precision_from_ordinal(static_cast<int>(state.range(0)));
  const kernel_set& k = set_for(state);
  const auto src = source();
  std::vector<std::uint8_t> payload(groups * 64);
  std::vector<fp16_bits> scales(groups * 2);
  for (auto _ : state) {
    k.quantize[ordinal(p)](src.data(), groups, payload.data(), scales.data());
    benchmark::DoNotOptimize(payload.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * src.size() * 2));
  state.SetLabel(std::string(tag(p)) + " " + std::string(k.name));
}

void dequantize_bench(benchmark::State& state) {
  const auto p = precision_from_ordinal(static_cast<int>(state.range(0)));
  const kernel_set& k = set_for(state);
  const auto src = source();
  std::vector<std::uint8_t> payload(groups * 64);
  std::vector<fp16_bits> scales(groups * 2);
  std::vector<float> out(src.size());
  k.quantize[ordinal(p)](src.data(), groups, payload.data(), scales.data());
  for (auto _ : state) {
    k.dequantize[ordinal(p)](payload.data(), scales.data(), groups, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * src.size() * 2));
  state.SetLabel(std::string(tag(p)) + " " + std::string(k.name));
}

void memcpy_bench(benchmark::State& state) {
  const auto src = source();
  std::vector<fp16_bits> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size() * 2);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * src.size() * 2));
}

// Args: precision ordinal, kernel set (0 scalar, 1 avx2).
BENCHMARK(quantize_bench)->ArgsProduct({{0, 1, 2, 3}, {0, 1}});
BENCHMARK(dequantize_bench)->ArgsProduct({{0, 1, 2, 3}, {0, 1}});
BENCHMARK(memcpy_bench);

}  // namespace
}  // namespace kvscope
