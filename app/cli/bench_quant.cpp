// `kvscope-cli bench quant`: quantize and dequantize kernels against memcpy, single thread.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_commands.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "memory/synthetic_kv.hpp"
#include "quant/kernels.hpp"
#include "quant/q3.hpp"
#include "quant/q4o.hpp"
#include "quant/tier_layout.hpp"
#include "util/parallel.hpp"

namespace kvscope::cli {
namespace {

struct quant_options {
  std::size_t mib = 256;
  int repeats = 3;
  std::string kernels = "best";
  std::string q4_format = "q4";  // q4o adds a row for the outlier-aware format
  std::uint32_t q4o_channels = q4o_default_channels;
  bool q3 = false;  // adds rows for q3 on key tiles (q3k) and value tiles (q3v)
  bool json = false;
};

struct kernel_result {
  std::string tier;
  double quantize_ns = 0;
  double dequantize_ns = 0;
  double rel_rmse = 0;
};

// Synthetic keys and values laid out as head vectors of 128 (8 kv heads): realistic
// magnitudes with outlier key channels, generated in parallel (a pure function, so any order).
void fill_kv(std::vector<fp16_bits>& out) {
  const model_shape shape{1, 8, 128};
  const std::size_t per_vector = shape.head_values();
  const synthetic_kv data{.seed = 7};
  parallel_chunks(std::size_t{0}, out.size() / per_vector, std::size_t{1}, [&](std::size_t begin, std::size_t end) {
    std::vector<float> values(per_vector);
    for (std::size_t i = begin; i != end; ++i) {
      const kv_part part = i % 2 == 0 ? kv_part::key : kv_part::value;
      data.fill(part, shape, 0, static_cast<std::uint32_t>(i / 2), 0, values);
      best_kernels().f32_to_fp16(values.data(), out.data() + i * per_vector, per_vector);
    }
  });
}

// Tiles as q4o and q3 store them: for each block of 16 positions, one tile of 16 rows x 128 per
// kv head, the tiles of a block in head order; the same synthetic keys (or values) as fill_kv.
constexpr std::size_t tile_rows = 16, tile_dim = 128;

void fill_tiles(std::vector<fp16_bits>& out, kv_part part) {
  const model_shape shape{1, 8, 128};
  const std::size_t tile = tile_rows * tile_dim;
  const std::size_t block = shape.kv_heads * tile;
  const synthetic_kv data{.seed = 7};
  parallel_chunks(std::size_t{0}, out.size() / block, std::size_t{1}, [&](std::size_t begin, std::size_t end) {
    std::vector<float> values(shape.head_values());
    std::vector<fp16_bits> halves(values.size());
    for (std::size_t b = begin; b != end; ++b) {
      for (std::size_t r = 0; r < tile_rows; ++r) {
        data.fill(part, shape, 0, static_cast<std::uint32_t>(b * tile_rows + r), 0, values);
        best_kernels().f32_to_fp16(values.data(), halves.data(), values.size());
        for (std::size_t h = 0; h < shape.kv_heads; ++h) {
          std::memcpy(out.data() + b * block + h * tile + r * tile_dim, halves.data() + h * tile_dim,
                      tile_dim * sizeof(fp16_bits));
        }
      }
    }
  });
}

// Bytes a stored tile takes in each output, so tiles lie back to back.
struct tile_bytes {
  std::size_t payload = 0, scale_halves = 0, side = 0;
};

// A tile format's kernels on tiles of `part` (keys: q4o, q3 with outlier channels; values: q3
// without). Same timing rules as the levels: quantize the whole buffer, dequantize into a
// two-tile scratch that stays in cache.
template <class Tile>
kernel_result time_tiles(std::string name, const tile_kernel_set<Tile>& kernels, const Tile& t,
                         tile_bytes per_tile, kv_part part, std::size_t elements, int repeats) {
  const std::size_t tile = t.rows * t.head_dim;
  const std::size_t tiles = elements / (tile * 8) * 8;
  std::vector<fp16_bits> source(tiles * tile);
  fill_tiles(source, part);
  std::vector<std::uint8_t> payload(tiles * per_tile.payload, 0), side(tiles * per_tile.side + 1, 0);
  std::vector<fp16_bits> scales(tiles * per_tile.scale_halves, 0);
  std::vector<float> scratch(2 * tile);
  const auto per_elem = [&](double ns) { return ns / static_cast<double>(tiles * tile); };
  kernel_result r{std::move(name)};
  r.quantize_ns = per_elem(best_of_ns(repeats, [&] {
    for (std::size_t i = 0; i < tiles; ++i) {
      kernels.quantize(t, source.data() + i * tile, t.head_dim, payload.data() + i * per_tile.payload,
                       scales.data() + i * per_tile.scale_halves, t.head_dim, side.data() + i * per_tile.side);
    }
  }));
  const auto load = [&](std::size_t i) {
    float* dst = scratch.data() + (i % 2) * tile;
    kernels.dequantize(t, payload.data() + i * per_tile.payload, scales.data() + i * per_tile.scale_halves,
                       t.head_dim, side.data() + i * per_tile.side, dst, t.head_dim);
    return dst;
  };
  volatile float sink = 0;
  r.dequantize_ns = per_elem(best_of_ns(repeats, [&] {
    for (std::size_t i = 0; i < tiles; ++i) load(i);
    sink = sink + scratch[0];
  }));
  double err = 0, ref = 0;  // untimed: error of the round trip vs the fp16 source
  for (std::size_t i = 0; i < tiles; ++i) {
    const float* back = load(i);
    for (std::size_t v = 0; v < tile; ++v) {
      const double x = fp16_to_f32(source[i * tile + v]);
      err += (back[v] - x) * (back[v] - x);
      ref += x * x;
    }
  }
  r.rel_rmse = std::sqrt(err / ref);
  return r;
}

const kernel_set* pick_kernels(const std::string& name) {
  if (name == "scalar") return &scalar_kernels();
  if (name == "avx2") return avx2_kernels();
  return &best_kernels();
}

// One level's kernels over `source` (whole groups): quantize into `payload` and `scales`,
// dequantize in L1-sized chunks, and the round trip's error against the fp16 source.
kernel_result time_level(const kernel_set& kernels, precision p, const std::vector<fp16_bits>& source,
                         std::vector<std::uint8_t>& payload, std::vector<fp16_bits>& scales, int repeats) {
  const std::size_t elements = source.size();
  const std::size_t groups = elements / group_size;
  const auto per_elem = [&](double ns) { return ns / static_cast<double>(elements); };
  constexpr std::size_t chunk = 128;  // groups: 16 KiB of floats, stays in L1
  std::vector<float> scratch(chunk * group_size);
  kernel_result r{std::string(tag(p))};
  const auto quantize = kernels.quantize[ordinal(p)];
  const auto dequantize = kernels.dequantize[ordinal(p)];
  const std::size_t pg = payload_bytes_per_group(p);
  const std::size_t sg = scale_halves_per_group(p);
  r.quantize_ns = per_elem(best_of_ns(repeats, [&] {
    quantize(source.data(), groups, payload.data(), scales.data());
  }));
  volatile float sink = 0;
  r.dequantize_ns = per_elem(best_of_ns(repeats, [&] {
    for (std::size_t g = 0; g < groups; g += chunk) {
      dequantize(payload.data() + g * pg, scales.data() + g * sg, std::min(chunk, groups - g),
                 scratch.data());
    }
    sink = sink + scratch[0];
  }));
  double err = 0, ref = 0;  // untimed: error of the round trip vs the fp16 source
  for (std::size_t g = 0; g < groups; g += chunk) {
    const std::size_t n = std::min(chunk, groups - g);
    dequantize(payload.data() + g * pg, scales.data() + g * sg, n, scratch.data());
    for (std::size_t i = 0; i < n * group_size; ++i) {
      const double x = fp16_to_f32(source[g * group_size + i]);
      err += (scratch[i] - x) * (scratch[i] - x);
      ref += x * x;
    }
  }
  r.rel_rmse = std::sqrt(err / ref);
  return r;
}

// The kernel sets that ran: the levels' set, then each tile format's ("q3 avx512"), as the
// tile formats pick theirs apart (an AVX-512 set where the levels stay AVX2).
struct kernel_names {
  std::string levels, tiles;
};

void print_quant_results(const quant_options& opt, const kernel_names& kernels, double memcpy_ns,
                         const std::vector<kernel_result>& results) {
  if (opt.json) {
    nlohmann::ordered_json out;
    out["memcpy_ns_per_elem"] = memcpy_ns;
    out["kernels"] = nlohmann::ordered_json::array();
    for (const auto& r : results) {
      out["kernels"].push_back({{"precision", r.tier},
                                {"quantize_ns_per_elem", r.quantize_ns},
                                {"dequantize_ns_per_elem", r.dequantize_ns},
                                {"quantize_vs_memcpy", memcpy_ns / r.quantize_ns},
                                {"dequantize_vs_memcpy", memcpy_ns / r.dequantize_ns},
                                {"rel_rmse", r.rel_rmse}});
    }
    std::printf("%s\n", out.dump().c_str());
    return;
  }
  const std::string tiles = kernels.tiles.empty() ? "" : " (" + kernels.tiles + ")";
  std::printf("kernels %s%s, %zu MiB of fp16, best of %d, single thread\n", kernels.levels.c_str(),
              tiles.c_str(), opt.mib, opt.repeats);
  std::printf("memcpy           %.4f ns/elem\n", memcpy_ns);
  std::printf("%-5s %12s %8s %12s %8s %10s\n", "tier", "quant ns/el", "vs cpy", "dequant ns/el",
              "vs cpy", "rel_rmse");
  for (const auto& r : results) {
    std::printf("%-5s %12.4f %8.2f %12.4f %8.2f %10.5f\n", r.tier.c_str(),
                r.quantize_ns, memcpy_ns / r.quantize_ns, r.dequantize_ns,
                memcpy_ns / r.dequantize_ns, r.rel_rmse);
  }
}

int run_quant(const quant_options& opt) {
  const kernel_set* kernels = pick_kernels(opt.kernels);
  if (kernels == nullptr) {
    print_error("--kernels avx2: this CPU lacks AVX2, F16C or FMA");
    return exit_bad_input;
  }
  const std::size_t elements = opt.mib * (std::size_t{1} << 20) / sizeof(fp16_bits);
  const std::size_t groups = elements / group_size;
  std::vector<fp16_bits> source(elements);
  std::vector<fp16_bits> copy(elements);
  std::vector<std::uint8_t> payload(elements);  // the largest quantized payload: 1 B a value
  std::vector<fp16_bits> scales(groups * 2, 0);
  std::memset(payload.data(), 0, payload.size());
  fill_kv(source);

  const double memcpy_ns = best_of_ns(opt.repeats, [&] {
    std::memcpy(copy.data(), source.data(), elements * sizeof(fp16_bits));
  }) / static_cast<double>(elements);
  std::vector<kernel_result> results;
  for (precision p : {precision::q8, precision::fp8, precision::q4}) {
    results.push_back(time_level(*kernels, p, source, payload, scales, opt.repeats));
  }
  const bool scalar = kernels == &scalar_kernels();
  kernel_names names{std::string(kernels->name), ""};
  const auto ran = [&](std::string_view format, std::string_view set) {
    names.tiles += (names.tiles.empty() ? "" : ", ") + std::string(format) + " " + std::string(set);
  };
  if (opt.q4_format == "q4o") {
    const q4o_tile t{tile_rows, tile_dim, opt.q4o_channels};
    const tile_bytes bytes{t.rows * t.head_dim / 2, t.rows * t.head_dim / 16, q4o_side_bytes(t.rows, t.channels)};
    const q4o_kernel_set& q4o = scalar ? scalar_q4o_kernels() : best_q4o_kernels();
    ran("q4o", q4o.name);
    results.push_back(time_tiles("q4o", q4o, t, bytes, kv_part::key, elements, opt.repeats));
  }
  if (opt.q3) {
    const q3_kernel_set& q3 = scalar ? scalar_q3_kernels() : best_q3_kernels();
    ran("q3", q3.name);
    for (const kv_part part : {kv_part::key, kv_part::value}) {
      const q3_tile t{tile_rows, tile_dim, part == kv_part::key ? opt.q4o_channels : 0};
      const tile_bytes bytes{q3_payload_bytes(t.rows * t.head_dim), t.rows, q4o_side_bytes(t.rows, t.channels)};
      results.push_back(time_tiles(part == kv_part::key ? "q3k" : "q3v", q3, t, bytes, part, elements, opt.repeats));
    }
  }
  print_quant_results(opt, names, memcpy_ns, results);
  return stdout_exit_status();
}

}  // namespace

void add_bench_quant_command(CLI::App& bench, int& exit_code) {
  auto opt = std::make_shared<quant_options>();
  auto* cmd = bench.add_subcommand(
      "quant",
      "Time quantize (fp16 -> q8/fp8/q4) and dequantize (-> f32, into a cache-resident scratch) "
      "per element against memcpy of the same fp16 buffer, single thread, and report the "
      "relative RMSE of the round trip");
  cmd->add_option("--mib", opt->mib, "MiB of fp16 data")->check(CLI::Range(1, 16384));
  cmd->add_option("--repeat", opt->repeats, "Runs of each measurement; the fastest counts")
      ->check(CLI::Range(1, 100));
  cmd->add_option("--kernels", opt->kernels, "Kernel set: best, avx2 or scalar")
      ->check(CLI::IsMember({"best", "avx2", "scalar"}));
  cmd->add_option("--q4-format", opt->q4_format,
                  "q4o adds a row for the outlier-aware q4 format, timed on key tiles of 16 x 128 "
                  "(values stay q4)")
      ->check(CLI::IsMember({"q4", "q4o"}));
  cmd->add_flag("--q3", opt->q3,
                "Adds rows for the 3-bit format q3, timed on key tiles of 16 x 128 with the outlier "
                "channels (q3k) and on value tiles without (q3v)");
  cmd->add_option("--q4o-channels", opt->q4o_channels, "Key channels q4o and q3 keep at int8 per tile")
      ->check(CLI::Range(0u, q4o_max_channels));
  cmd->add_flag("--json", opt->json, "Print one JSON object");
  cmd->callback([opt, &exit_code] { exit_code = run_quant(*opt); });
}

}  // namespace kvscope::cli
