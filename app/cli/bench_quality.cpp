// `kvscope-cli bench quality`: calibrates the per-level attention error factors that accounting
// mode's attention_error_exposure uses (memory/error_factors.hpp), in data mode, and prints them
// as the table that header holds.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_commands.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "memory/error_factors.hpp"
#include "memory/kv_sample.hpp"
#include "memory/model_shape.hpp"
#include "memory/quality.hpp"

namespace kvscope::cli {
namespace {

struct bench_quality_options {
  std::string model = "tiny";
  std::uint32_t context = 1024;
  std::uint32_t sequences = 16;
  std::uint64_t seed = 0;
  std::string kv_sample;  // a safetensors file of real K/V instead of synthetic data
  std::string q4_format = "q4";  // q4o: every level and both q4 formats, on the kernels
  std::uint32_t q4o_channels = q4o_default_channels;
  bool q3 = false;  // adds the 3-bit format q3 (quant/q3.hpp), on the kernels
  std::string q3_codebook = "lloyd-max";
};

// The table of --q4-format q4o or --q3: the sequences measure_attention_error_factors measures (blocks
// of 16, streams 1000 + i), each block stored and read back on the kernels; for the four levels
// the figures equal the paged cache's (memory/quality.hpp).
int run_format_table(const bench_quality_options& o, const model_shape& shape) {
  constexpr std::uint32_t block_size = 16;
  if (!valid_q4o_tile({block_size, shape.head_dim, o.q4o_channels})) {
    print_error("--q4-format q4o, --q3: head_dim must be a multiple of 32 up to 256");
    return exit_bad_input;
  }
  std::vector<stored_format> formats;
  for (precision p : all_precisions) formats.push_back({p});
  formats.push_back({precision::q4, q4_format::q4o, o.q4o_channels});
  // The q3 level stores the Lloyd-Max codebook (its row above); --q3 adds the uniform one beside it.
  if (o.q3 && o.q3_codebook != tag(q3_codebook::lloyd_max)) {
    formats.push_back({precision::q3, q4_format::q4, o.q4o_channels, parse_q3_codebook(o.q3_codebook)});
  }
  std::printf("relative L2 error of decode attention, every block at one level (model %s, %u-token "
              "contexts, %u sequences, seed %llu), blocks stored and read on the kernels\n",
              o.model.c_str(), o.context, o.sequences, static_cast<unsigned long long>(o.seed));
  std::printf("format  bits/value  measured      shipped (memory/error_factors.hpp)\n");
  const synthetic_kv data{.seed = o.seed};
  for (const stored_format& f : formats) {
    error_sum pooled;
    for (std::uint32_t i = 0; i < o.sequences; ++i) {
      pooled += measure_format_attention_error(data, shape, f, o.context, block_size, 1000 + i);
    }
    const bool q4o = f.format == q4_format::q4o;
    const std::string name = f.q3 ? "q3-" + o.q3_codebook : q4o ? "q4o" : std::string(tag(f.level));
    std::printf("%-6s  %10.4f  %.6e", name.c_str(), bits_per_value(f, shape, block_size), pooled.relative());
    if (f.q3) {
      std::printf("  -             (%s codebook, %u key channels at int8; the q3 level stores lloyd-max)\n",
                  o.q3_codebook.c_str(), f.q4o_channels);
    } else if (q4o) {
      std::printf("  %.6e  (%u key channels at int8 per block, layer and kv head)\n",
                  q4o_attention_error_factors[f.q4o_channels], f.q4o_channels);
    } else if (f.level == precision::q3) {
      std::printf("  %.6e  (lloyd-max codebook, %u key channels at int8)\n", attention_error_factors[ordinal(f.level)],
                  f.q4o_channels);
    } else {
      std::printf("  %.6e\n", attention_error_factors[ordinal(f.level)]);
    }
  }
  return stdout_exit_status();
}

int run_bench_quality(const bench_quality_options& o) {
  if (!o.kv_sample.empty()) {
    const auto sample = read_kv_sample(o.kv_sample);
    if (!sample) {
      print_error(sample.error());
      return exit_bad_input;
    }
    const auto measured = attention_error_factors_of(*sample);
    std::printf("relative L2 error of decode attention, every K/V value at one level (%s: %u tokens, "
                "%u heads x %u, %u queries)\n",
                o.kv_sample.c_str(), sample->tokens, sample->heads, sample->head_dim, sample->queries);
    std::printf("level  measured      shipped (memory/error_factors.hpp, synthetic K/V)\n");
    for (precision p : all_precisions) {
      std::printf("%-5s  %.6e  %.6e\n", std::string(tag(p)).c_str(), measured[ordinal(p)],
                  attention_error_factors[ordinal(p)]);
    }
    if (o.q4_format == "q4o") {
      std::printf("q4o    %.6e  %s  (%u key channels at int8 per 16 tokens and head)\n",
                  q4o_attention_error_of(*sample, o.q4o_channels), "-           ", o.q4o_channels);
    }
    if (o.q3) {
      std::printf("q3     %.6e  %s  (%s codebook, %u key channels at int8 per 16 tokens and head)\n",
                  q3_attention_error_of(*sample, o.q4o_channels, *parse_q3_codebook(o.q3_codebook)),
                  "-           ", o.q3_codebook.c_str(), o.q4o_channels);
    }
    return stdout_exit_status();
  }
  const auto shape = find_model_shape(o.model);
  if (!shape) {
    print_error("--model: unknown model '" + o.model + "'");
    return exit_bad_input;
  }
  if (o.q4_format == "q4o" || o.q3) return run_format_table(o, *shape);
  const auto measured = measure_attention_error_factors(*shape, o.context, o.sequences, o.seed);
  const auto& shipped = attention_error_factors;
  std::printf("relative L2 error of decode attention, every block at one level (model %s, %u-token "
              "contexts, %u sequences, seed %llu)\n",
              o.model.c_str(), o.context, o.sequences, static_cast<unsigned long long>(o.seed));
  std::printf("level  measured      shipped (memory/error_factors.hpp)\n");
  for (precision p : all_precisions) {
    std::printf("%-5s  %.6e  %.6e\n", std::string(tag(p)).c_str(), measured[ordinal(p)],
                shipped[ordinal(p)]);
  }
  std::printf("as C++: {%.4e, %.4e, %.4e, %.4e, %.4e}\n", measured[0], measured[1], measured[2], measured[3],
              measured[4]);
  return stdout_exit_status();
}

}  // namespace

void add_bench_quality_command(CLI::App& bench, int& exit_code) {
  auto o = std::make_shared<bench_quality_options>();
  auto* cmd = bench.add_subcommand(
      "quality", "Calibrate the attention error of each level in data mode (the factors behind "
                 "attention_error_exposure)");
  cmd->add_option("--model", o->model, "Model whose KV shape is measured")->default_val(o->model);
  cmd->add_option("--context", o->context, "Tokens per sequence")->check(CLI::Range(16u, 1u << 20))->default_val(o->context);
  cmd->add_option("--sequences", o->sequences, "Sequences per level")->check(CLI::Range(1u, 4096u))->default_val(o->sequences);
  cmd->add_option("--seed", o->seed, "Seed of the synthetic K/V")->default_val(o->seed);
  cmd->add_option("--kv-sample", o->kv_sample,
                  "Measure on real K/V tensors from a safetensors file (k, v and optionally q; "
                  "[tokens, heads, head_dim], or layers first)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--q4-format", o->q4_format,
                  "q4o: measure every level and both q4 formats (q4, and q4o with outlier key "
                  "channels at int8) with their bits per value, on the kernels")
      ->check(CLI::IsMember({"q4", "q4o"}))
      ->default_val(o->q4_format);
  cmd->add_flag("--q3", o->q3,
                "Add the 3-bit format q3 (rotated 3-bit codes, the outlier key channels at int8; the "
                "level below q4) to the table of every level and both q4 formats, on the kernels");
  cmd->add_option("--q3-codebook", o->q3_codebook, "q3's codebook: lloyd-max or uniform")
      ->check(CLI::IsMember({"lloyd-max", "uniform"}))
      ->default_val(o->q3_codebook);
  cmd->add_option("--q4o-channels", o->q4o_channels,
                  "Key channels q4o and q3 keep at int8 per block, layer and head")
      ->check(CLI::Range(0u, q4o_max_channels))
      ->default_val(o->q4o_channels);
  cmd->callback([o, &exit_code] { exit_code = run_bench_quality(*o); });
}

}  // namespace kvscope::cli
