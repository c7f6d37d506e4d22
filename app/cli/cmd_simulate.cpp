// `kvscope-cli simulate` and `kvscope-cli replay`: run the whole engine on a load, headless.
#include <CLI/CLI.hpp>
#include <tbb/global_control.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "engine/run_summary.hpp"
#include "engine/session.hpp"
#include "io/metrics_csv.hpp"
#include "io/policy_file.hpp"
#include "load/load_error.hpp"
#include "load_options.hpp"
#include "memory/model_shape.hpp"
#include "output_checks.hpp"
#include "util/atomic_write.hpp"
#include "util/byte_size.hpp"

namespace kvscope::cli {
namespace {

struct output_options {
  int threads = 0;  // 0 = TBB's default (all cores)
  std::string metrics_path;
  std::uint32_t metrics_every = 1;
  std::string summary_json_path;
  bool quiet = false;
};

struct simulate_options {
  load_options load;
  std::string budget = "16GiB";
  std::string policy_path;
  std::string preset;
  std::string payload = "accounting";
  std::string session_path;
  double step_base_ms = 10, step_prefill_us = 40, step_decode_us = 80;
  bool no_prefix_caching = false;
  engine_options engine;
  output_options out;
};

// The outputs of output_options, but --summary-json '-', which is stdout.
std::vector<named_path> outputs_of(const output_options& o) {
  std::vector<named_path> out{{"--metrics", o.metrics_path}};
  if (o.summary_json_path != "-") out.push_back({"--summary-json", o.summary_json_path});
  return out;
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void add_output_options(CLI::App& cmd, output_options& o) {
  cmd.add_option("--threads", o.threads, "Worker threads for quantization and migration (default: all cores)")
      ->check(CLI::Range(1, 1024));
  cmd.add_option("--metrics", o.metrics_path, "Write per-step metrics as CSV (atomically)");
  cmd.add_option("--metrics-every", o.metrics_every, "Write every K-th step to --metrics")
      ->check(CLI::Range(1u, 1u << 30))
      ->default_val(1);
  cmd.add_option("--summary-json", o.summary_json_path,
                 "Write the summary as JSON to FILE ('-' for stdout, replacing the text summary)");
  cmd.add_flag("--quiet", o.quiet, "No text summary on stdout");
}

// Runs `make` to completion with metrics, progress and the summary; returns the exit code.
int run_to_end(const std::function<std::unique_ptr<engine>(
                   const std::function<void(const engine&)>&)>& run,
               const std::string& load_name, const output_options& out) {
  std::optional<tbb::global_control> threads;
  if (out.threads > 0) {
    threads.emplace(tbb::global_control::max_allowed_parallelism,
                    static_cast<std::size_t>(out.threads));
  }
  metrics_csv_writer csv;
  if (!out.metrics_path.empty()) {
    if (auto r = csv.open(out.metrics_path); !r) {
      print_error(r.error());
      return exit_bad_input;
    }
  }
  const bool progress = stderr_is_terminal();
  const double start = now_s();
  double last_progress = start;
  auto on_step = [&](const engine& e) {
    const auto& m = e.last_metrics();
    if (csv.is_open() && m.step % out.metrics_every == 0) csv.write(m);
    if (progress && (m.step & 1023) == 0 && now_s() - last_progress > 0.25) {
      last_progress = now_s();
      std::fprintf(stderr, "\rstep %llu, %.0f s simulated, %llu/%llu requests done, level %s   ",
                   static_cast<unsigned long long>(m.step), m.sim_time_s,
                   static_cast<unsigned long long>(e.totals().requests_finished),
                   static_cast<unsigned long long>(e.totals().requests_total),
                   std::string(tag(m.level)).c_str());
    }
  };
  std::unique_ptr<engine> e;
  try {
    e = run(on_step);
  } catch (const load_error& err) {
    if (progress) std::fprintf(stderr, "\r\033[K");
    print_error(err.what());
    return exit_bad_input;
  }
  const double wall = now_s() - start;
  if (progress) std::fprintf(stderr, "\r\033[K");
  if (csv.is_open()) {
    if (auto r = csv.finish(); !r) {
      print_error(r.error());
      return exit_runtime_failure;
    }
  }
  const auto summary = summarize(*e, load_name, wall);
  if (out.summary_json_path == "-") {
    std::cout << summary_json(summary);
  } else {
    if (!out.summary_json_path.empty()) {
      if (auto r = write_file_atomically(out.summary_json_path, summary_json(summary)); !r) {
        print_error(r.error());
        return exit_runtime_failure;
      }
    }
    if (!out.quiet) std::cout << summary_text(summary);
  }
  for (const auto& r : e->rejected()) {
    std::cerr << "kvscope-cli: request " << r.request_id << " rejected: " << r.reason << '\n';
  }
  return exit_ok;
}

int run_simulate(simulate_options& o) {
  // Before anything is read, written or run: no output may be unwritable or replace an input.
  auto outputs = outputs_of(o.out);
  outputs.push_back({"--session", o.session_path});
  const std::string trace = o.load.spec.starts_with("gen:") ? std::string() : o.load.spec;
  if (auto problem = check_outputs(outputs, {{"--load", trace}, {"--policy", o.policy_path}})) {
    print_error(*problem);
    return exit_bad_input;
  }
  auto& e = o.engine;
  const auto budget = parse_byte_size(o.budget);
  if (!budget) {
    print_error("--budget: not a size: '" + o.budget + "' (e.g. 16GiB, 512MiB, 1073741824)");
    return exit_bad_input;
  }
  e.budget_bytes = *budget;
  if (!o.policy_path.empty()) {
    auto config = read_policy_config(o.policy_path);
    if (!config) {
      print_error(config.error());
      return exit_bad_input;
    }
    e.policy = *config;
  } else if (!o.preset.empty()) {
    e.policy = *policy_preset(o.preset);
  }
  e.payload = o.payload == "data" ? payload_mode::data : payload_mode::accounting;
  e.prefix_caching = !o.no_prefix_caching;
  e.timing = {o.step_base_ms * 1e-3, o.step_prefill_us * 1e-6, o.step_decode_us * 1e-6};
  if (auto reason = validate(e)) {
    print_error(*reason);
    return exit_bad_input;
  }

  session s;
  s.load_spec = o.load.spec;
  s.format = parse_load_format(o.load.format).value_or(load_format::automatic);
  s.skip_bad_rows = o.load.skip_bad_rows;
  s.options = e;
  if (!o.session_path.empty()) {
    if (auto r = write_session(o.session_path, s); !r) {
      print_error(r.error());
      return exit_bad_input;
    }
  }
  return run_to_end(
      [&](const std::function<void(const engine&)>& on_step) {
        auto eng = std::make_unique<engine>(e, open_load(o.load));
        while (eng->step()) on_step(*eng);
        return eng;
      },
      o.load.spec, o.out);
}

}  // namespace

void add_simulate_command(CLI::App& root, int& exit_code) {
  auto o = std::make_shared<simulate_options>();
  auto* cmd = root.add_subcommand(
      "simulate", "Run the paged KV cache, scheduler and policy on a load and print a summary");
  add_load_options(*cmd, o->load);
  std::vector<std::string> models;
  for (const auto& m : model_presets()) models.emplace_back(m.name);
  cmd->add_option("--model", o->engine.model, "Model shape preset")
      ->check(CLI::IsMember(models))
      ->default_val("llama3-8b");
  cmd->add_option("--budget", o->budget, "KV cache budget: 16GiB, 512MiB, bytes")
      ->default_val("16GiB");
  std::vector<std::string> presets;
  for (auto name : policy_preset_names()) presets.emplace_back(name);
  auto* policy = cmd->add_option("--policy", o->policy_path, "Policy config file (.json or .toml)")
                     ->check(CLI::ExistingFile);
  auto* preset = cmd->add_option("--preset", o->preset, "Policy preset (default: default)")
                     ->check(CLI::IsMember(presets));
  policy->excludes(preset);
  preset->excludes(policy);
  cmd->add_option("--payload", o->payload,
                  "accounting: tables and bytes only (any model size); data: real K/V bytes, "
                  "quantized and measured")
      ->check(CLI::IsMember({"accounting", "data"}))
      ->default_val("accounting");
  cmd->add_option("--session", o->session_path, "Also write a session file that `replay` re-runs");
  cmd->add_option("--block-size", o->engine.block_size, "Tokens per block")->default_val(16);
  cmd->add_option("--tail-tokens", o->engine.tail_tokens, "Hot fp16 tail per sequence")
      ->default_val(256);
  cmd->add_option("--migration-batch", o->engine.migration_batch,
                  "Cold blocks re-quantized per step at most")
      ->default_val(64);
  cmd->add_option("--max-tokens", o->engine.max_tokens, "Sliding window per sequence (0 = off)")
      ->default_val(0);
  cmd->add_option("--max-num-seqs", o->engine.scheduler.max_num_seqs, "Running sequences at most")
      ->default_val(256);
  cmd->add_option("--max-num-batched-tokens", o->engine.scheduler.max_num_batched_tokens,
                  "Tokens per step at most (chunked prefill)")
      ->default_val(8192);
  cmd->add_option("--watermark", o->engine.scheduler.watermark,
                  "Fraction of frames kept free when admitting")
      ->default_val(0.01);
  cmd->add_flag("--no-prefix-caching", o->no_prefix_caching, "Disable automatic prefix caching");
  cmd->add_option("--seed", o->engine.seed, "Seed of the synthetic K/V data")->default_val(0);
  cmd->add_option("--quality-every", o->engine.quality_every,
                  "Data mode: measure quantization and attention error every N steps (0 = never)")
      ->default_val(50);
  cmd->add_option("--step-base-ms", o->step_base_ms, "Step-time model: fixed cost per step")
      ->default_val(10);
  cmd->add_option("--step-prefill-us", o->step_prefill_us, "Step-time model: cost per prompt token")
      ->default_val(40);
  cmd->add_option("--step-decode-us", o->step_decode_us, "Step-time model: cost per decoded token")
      ->default_val(80);
  add_output_options(*cmd, o->out);
  cmd->callback([o, &exit_code] { exit_code = run_simulate(*o); });
}

void add_replay_command(CLI::App& root, int& exit_code) {
  auto path = std::make_shared<std::string>();
  auto out = std::make_shared<output_options>();
  auto* cmd = root.add_subcommand(
      "replay", "Re-run a session file (load, options and command log) and print its summary");
  cmd->add_option("--session", *path, "Session file")->required()->check(CLI::ExistingFile);
  add_output_options(*cmd, *out);
  cmd->callback([path, out, &exit_code] {
    auto s = read_session(*path);
    if (!s) {
      print_error(s.error());
      exit_code = exit_bad_input;
      return;
    }
    const std::string trace = s->load_spec.starts_with("gen:") ? std::string() : s->load_spec;
    if (auto problem = check_outputs(outputs_of(*out), {{"--session", *path}, {"load", trace}})) {
      print_error(*problem);
      exit_code = exit_bad_input;
      return;
    }
    exit_code = run_to_end(
        [&](const std::function<void(const engine&)>& on_step) { return replay(*s, on_step); },
        s->load_spec, *out);
  });
}

}  // namespace kvscope::cli
