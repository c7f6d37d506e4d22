// `kvscope-cli bench paged`: write and read cost of one (sequence, position, layer) slot of the
// paged cache in data mode, single thread.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "bench_commands.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "memory/paged_cache.hpp"
#include "memory/synthetic_kv.hpp"
#include "quant/q4o.hpp"
#include "quant/tier_layout.hpp"

namespace kvscope::cli {
namespace {

struct paged_options {
  std::uint32_t seqs = 64;
  std::uint32_t tokens = 512;
  std::uint32_t layers = 4;
  std::uint32_t kv_heads = 2;
  std::uint32_t head_dim = 64;
  std::uint32_t block_size = 16;
  std::string precision_tag = "fp16";
  std::string q4_format = "q4";  // q4o: the q4 blocks stored as q4o (memory/paged_cache.hpp)
  std::uint32_t q4o_channels = q4o_default_channels;
  int repeats = 3;
};

// Side-table bytes of one block beside its scales: q4o's records for q4 blocks, q3's scales and
// records for q3 blocks, else none.
std::uint64_t side_bytes_of(const paged_options& opt, precision tier) {
  const std::size_t tiles = std::size_t{opt.layers} * opt.kv_heads;
  if (tier == precision::q3) {
    return q3_block_side_bytes(std::size_t{opt.block_size} * 2 * tiles, tiles, opt.block_size, opt.q4o_channels);
  }
  if (tier != precision::q4 || opt.q4_format != "q4o") return 0;
  return q4o_block_side_bytes(tiles, opt.block_size, opt.q4o_channels);
}

// Just enough budget for every block at `tier`, scales included.
std::uint64_t budget_for(const paged_options& opt, precision tier, const model_shape& shape) {
  const std::uint64_t frame = shape.frame_bytes(opt.block_size);
  const std::uint64_t blocks =
      std::uint64_t{opt.seqs} * ((opt.tokens + opt.block_size - 1) / opt.block_size);
  const std::uint64_t frames = (blocks + slots_per_frame(tier) - 1) / slots_per_frame(tier);
  const tier_layout layout =
      block_layout(tier, std::uint64_t{opt.block_size} * shape.values_per_token(), side_bytes_of(opt, tier));
  const std::uint64_t scale_frames = (blocks * layout.scale_bytes + frame - 1) / frame;
  return (frames + scale_frames) * frame;
}

// `seqs` sequences of `tokens` tokens, every block at `tier`; nothing when the pool runs out.
std::optional<std::vector<sequence_id>> fill_pool(paged_cache& cache, const paged_options& opt, precision tier) {
  std::vector<sequence_id> ids;
  const std::uint32_t blocks = (opt.tokens + opt.block_size - 1) / opt.block_size;
  for (std::uint32_t s = 0; s < opt.seqs; ++s) {
    const sequence_id id = cache.create_sequence();
    ids.push_back(id);
    for (std::uint32_t b = 0; b < blocks; ++b) {
      if (!cache.append_block(id, tier)) return std::nullopt;
    }
  }
  return ids;
}

// A small ring of inputs that stays in cache: the timing is the cache's, not the generator's.
class input_ring {
 public:
  explicit input_ring(const model_shape& shape) : hv_(shape.head_values()), values_(size * 2 * hv_) {
    const synthetic_kv data{.seed = 11};
    for (std::size_t i = 0; i < size; ++i) {
      data.fill(kv_part::key, shape, 0, static_cast<std::uint32_t>(i), 0, {&values_[2 * i * hv_], hv_});
      data.fill(kv_part::value, shape, 0, static_cast<std::uint32_t>(i), 0, {&values_[(2 * i + 1) * hv_], hv_});
    }
  }
  // The K (part 0) or V (part 1) written at (pos, layer).
  std::span<const float> at(std::uint32_t pos, std::uint32_t layer, int part) const {
    return {&values_[(2 * ((pos + layer) % size) + part) * hv_], hv_};
  }

 private:
  static constexpr std::size_t size = 16;
  std::size_t hv_;
  std::vector<float> values_;
};

// Calls `f(id, pos, layer)` for every slot, in the order the timed passes visit them.
template <class F>
void for_each_slot(const std::vector<sequence_id>& ids, const paged_options& opt, F&& f) {
  for (const sequence_id id : ids) {
    for (std::uint32_t pos = 0; pos < opt.tokens; ++pos) {
      for (std::uint32_t layer = 0; layer < opt.layers; ++layer) f(id, pos, layer);
    }
  }
}

// The physical floor of a read pass: streaming the same number of bytes (payload and scales)
// from a buffer as large, so from the same level of the memory hierarchy. Reading cannot
// beat it, so a read_slot_ns close to it is bound by memory bandwidth, not by the cache's code.
double read_floor_ns(const paged_options& opt, precision tier, std::size_t head_values, double slot_count) {
  const std::size_t groups_per_slot = 2 * head_values / group_size;
  // A slot's share of its block's side records too (q4o), as a read of every slot reads them all.
  const double bytes_per_slot =
      static_cast<double>(groups_per_slot * (payload_bytes_per_group(tier) + scale_bytes_per_group(tier))) +
      static_cast<double>(side_bytes_of(opt, tier)) / (static_cast<double>(opt.block_size) * opt.layers);
  std::vector<std::uint64_t> stream(static_cast<std::size_t>(slot_count * bytes_per_slot / 8), 1);
  volatile std::uint64_t sink = 0;  // the loads' result goes somewhere, so they stay
  return best_of_ns(opt.repeats, [&] {
    std::uint64_t a = 0, b = 0, c = 0, d = 0;
    for (std::size_t i = 0; i + 4 <= stream.size(); i += 4) {
      a ^= stream[i];
      b ^= stream[i + 1];
      c ^= stream[i + 2];
      d ^= stream[i + 3];
    }
    sink = a ^ b ^ c ^ d;
  });
}

// Untimed check that every slot reads back what was written: the relative RMSE over all of
// them, or NaN when a read failed.
double read_back_error(paged_cache& cache, const std::vector<sequence_id>& ids, const paged_options& opt,
                       const input_ring& inputs, std::size_t head_values) {
  std::vector<float> k_out(head_values), v_out(head_values);
  double err = 0, ref = 0;
  bool failed = false;
  for_each_slot(ids, opt, [&](sequence_id id, std::uint32_t pos, std::uint32_t layer) {
    failed |= !cache.read(id, layer, pos, k_out, v_out);
    for (int part = 0; part < 2; ++part) {
      const auto in = inputs.at(pos, layer, part);
      const auto& out = part == 0 ? k_out : v_out;
      for (std::size_t i = 0; i < head_values; ++i) {
        const double d = out[i] - in[i];
        err += d * d;
        ref += double{in[i]} * in[i];
      }
    }
  });
  return failed ? NAN : std::sqrt(err / ref);
}

int run_paged(const paged_options& opt) {
  const precision tier = *parse_precision(opt.precision_tag);  // CLI11 checked it
  const model_shape shape{opt.layers, opt.kv_heads, opt.head_dim};
  if (opt.q4_format == "q4o" && tier != precision::q4) {
    print_error("bench paged: --q4-format q4o stores q4 blocks: give --precision q4");
    return exit_bad_input;
  }
  paged_cache_config config;
  config.pool = {shape, opt.block_size, budget_for(opt, tier, shape), payload_mode::data, true};
  if (opt.q4_format == "q4o") config.pool.q4_storage = q4_format::q4o;
  config.pool.q4o_channels = opt.q4o_channels;  // q4o's channels, and q3's
  if (tier == precision::q3 && !valid_q3_tile({opt.block_size, opt.head_dim, opt.q4o_channels})) {
    print_error("bench paged: q3 stores head_dim up to 256 and up to 16 key channels");
    return exit_bad_input;
  }
  if (auto why = paged_cache::validate(config)) {
    print_error("bench paged: " + *why);
    return exit_bad_input;
  }
  paged_cache cache(config);
  const auto ids = fill_pool(cache, opt, tier);
  if (!ids) {
    print_error("bench paged: the pool ran out of memory while sizing");
    return exit_runtime_failure;
  }
  const input_ring inputs(shape);
  const std::size_t hv = shape.head_values();
  std::vector<float> k_out(hv), v_out(hv);
  bool failed = false;
  const double write_ns = best_of_ns(opt.repeats, [&] {
    for_each_slot(*ids, opt, [&](sequence_id id, std::uint32_t pos, std::uint32_t layer) {
      failed |= !cache.write(id, layer, pos, inputs.at(pos, layer, 0), inputs.at(pos, layer, 1));
    });
  });
  const double read_ns = best_of_ns(opt.repeats, [&] {
    for_each_slot(*ids, opt, [&](sequence_id id, std::uint32_t pos, std::uint32_t layer) {
      failed |= !cache.read(id, layer, pos, k_out, v_out);
    });
  });
  const double slot_count = static_cast<double>(opt.seqs) * opt.tokens * opt.layers;
  const double floor_ns = read_floor_ns(opt, tier, hv, slot_count);

  const double rel_rmse = read_back_error(cache, *ids, opt, inputs, hv);
  const double bound = tier == precision::fp16 ? 1e-3 : tier == precision::q3 ? 0.3 : tier == precision::q4 ? 0.2 : 0.1;
  if (failed || !(rel_rmse <= bound)) {
    print_error("bench paged: data read back does not match what was written (rel RMSE " +
                std::to_string(rel_rmse) + ")");
    return exit_runtime_failure;
  }
  std::printf("write_slot_ns %.2f read_slot_ns %.2f read_floor_ns %.2f\n", write_ns / slot_count,
              read_ns / slot_count, floor_ns / slot_count);
  return stdout_exit_status();
}

}  // namespace

void add_bench_paged_command(CLI::App& bench, int& exit_code) {
  auto opt = std::make_shared<paged_options>();
  auto* cmd = bench.add_subcommand(
      "paged",
      "Write the K and V of every (sequence, position, layer) slot from f32, then read every one "
      "back dequantized, single thread, data mode with the pool prefaulted; prints "
      "'write_slot_ns <x> read_slot_ns <y> read_floor_ns <z>' (best of --repeat passes, ns per "
      "slot); z is the time to stream the same bytes from a buffer as large, a floor no read "
      "can beat");
  cmd->add_option("--seqs", opt->seqs, "Sequences")->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--tokens", opt->tokens, "Tokens per sequence")->check(CLI::Range(1u, 1u << 24));
  cmd->add_option("--layers", opt->layers, "Layers")->check(CLI::Range(1u, 1024u));
  cmd->add_option("--kv-heads", opt->kv_heads, "KV heads")->check(CLI::Range(1u, 1024u));
  cmd->add_option("--head-dim", opt->head_dim, "Head dimension (a multiple of 32)")
      ->check(CLI::Range(32u, 4096u));
  cmd->add_option("--block-size", opt->block_size, "Tokens per block")->check(CLI::Range(1u, 4096u));
  cmd->add_option("--precision", opt->precision_tag, "Tier of every block: fp16, q8, fp8, q4 or q3")
      ->check(CLI::IsMember({"fp16", "q8", "fp8", "q4", "q3"}));
  cmd->add_option("--q4-format", opt->q4_format,
                  "q4o: the q4 blocks stored as q4o, outlier key channels apart at int8 "
                  "(with --precision q4)")
      ->check(CLI::IsMember({"q4", "q4o"}));
  cmd->add_option("--q4o-channels", opt->q4o_channels,
                  "Key channels q4o and q3 keep at int8 per block, layer and head")
      ->check(CLI::Range(0u, q4o_max_channels));
  cmd->add_option("--repeat", opt->repeats, "Passes of each measurement; the fastest counts")
      ->check(CLI::Range(1, 100));
  cmd->callback([opt, &exit_code] { exit_code = run_paged(*opt); });
}

}  // namespace kvscope::cli
