// `kvscope-cli import-bench`, `predict-bench` and `calibrate`: kvscope beside `vllm bench serve`.
// import-bench reads its result files; predict-bench prints the table it prints, simulated, for
// a list of concurrencies or rates; calibrate fits the roofline's efficiencies to measurements.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "commands.hpp"
#include "io/bench_table.hpp"
#include "load/load_error.hpp"
#include "load/vllm_bench.hpp"
#include "output_checks.hpp"
#include "policy/policy_config.hpp"
#include "run/calibration_fit.hpp"
#include "run/run_service.hpp"
#include "run_option_flags.hpp"
#include "util/atomic_write.hpp"

namespace kvscope::cli {
namespace {

// A measured result in kvscope's metric names (run/metric_table.cpp).
nlohmann::ordered_json in_kvscope_names(const vllm_bench_result& m) {
  const auto f = figures_of(m);
  nlohmann::ordered_json j;
  j["source"] = m.source;
  j["model"] = m.model_id;
  j["max_concurrency"] = m.max_concurrency ? nlohmann::ordered_json(*m.max_concurrency) : nlohmann::ordered_json(nullptr);
  j["request_rate"] = std::isfinite(m.request_rate) ? nlohmann::ordered_json(m.request_rate) : nlohmann::ordered_json("inf");
  j["requests_finished"] = f.completed;
  j["sim_seconds"] = f.duration_s;
  j["requests_per_s"] = f.request_throughput;
  j["output_tokens_per_s"] = f.output_throughput;
  const auto add = [&](const char* kind, const double (&v)[3]) {
    const auto s = [](double ms) { return std::isfinite(ms) ? nlohmann::ordered_json(ms / 1e3) : nlohmann::ordered_json(nullptr); };
    j["latency"][kind] = {{"mean", s(v[0])}, {"p50", s(v[1])}, {"p99", s(v[2])}};
  };
  add("ttft_s", f.ttft);
  add("tpot_s", f.tpot);
  add("itl_s", f.itl);
  add("e2e_s", f.e2el);
  if (m.tokens_per_chunk > 0) j["tokens_per_chunk"] = m.tokens_per_chunk;
  return j;
}

// A server that streamed several tokens per chunk (vLLM 0.6's multi-step scheduling) measured
// ITL per chunk, not per token: say so, and how to simulate it like with like.
std::string chunking_note(const vllm_bench_result& m) {
  if (!(m.tokens_per_chunk >= 1.5)) return {};
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "note: this server streamed about %.1f tokens per chunk (multi-step scheduling): its ITL is "
                "the gap between chunks, not tokens; simulate with --num-scheduler-steps %ld to compare it\n",
                m.tokens_per_chunk, std::lround(m.tokens_per_chunk));
  return buf;
}

void add_import_bench(CLI::App& root, int& exit_code) {
  struct options {
    std::vector<std::string> files;
    bool json = false;
  };
  auto o = std::make_shared<options>();
  auto* cmd = root.add_subcommand(
      "import-bench", "Read `vllm bench serve --save-result` files: their table, and their figures in "
                      "kvscope's metric names (`--load bench:FILE.json` replays one)");
  cmd->add_option("files", o->files, "Result files")->required()->check(CLI::ExistingFile);
  cmd->add_flag("--json", o->json, "One JSON array of the results in kvscope's metric names");
  cmd->callback([o, &exit_code] {
    std::vector<vllm_bench_result> results;
    for (const auto& file : o->files) {
      auto r = read_vllm_bench(file);
      if (!r) {
        print_error(r.error());
        exit_code = exit_bad_input;
        return;
      }
      results.push_back(std::move(*r));
    }
    if (o->json) {
      auto all = nlohmann::ordered_json::array();
      for (const auto& r : results) all.push_back(in_kvscope_names(r));
      std::cout << all.dump(2) << '\n';
    } else {
      for (const auto& r : results) {
        std::cout << r.source << (r.model_id.empty() ? "" : " (" + r.model_id + ")") << '\n'
                  << bench_table(figures_of(r), "Measured") << chunking_note(r) << "as kvscope names them: "
                  << in_kvscope_names(r).dump() << "\n\n";
      }
    }
    exit_code = stdout_exit_status();
  });
}

struct predict_options {
  run_option_flags flags;
  std::vector<std::uint32_t> concurrency;
  std::vector<double> rates;
  std::uint32_t input_len = 1024, output_len = 128;
  std::uint32_t num_prompts = 0;  // 0: max(10 x concurrency, 100), or the rate x 60 s
  std::string load;               // bench:FILE.json instead of the random dataset
  std::uint64_t seed = 0;
};

// The row's figures as ranges from the calibration's errors, under the row they qualify.
void print_range_row(const calibration& c, const bench_figures& f) {
  if (c.basis == band_basis::none) return;
  const auto text = [](predicted_range r, const char* format) {
    char buf[48];
    std::snprintf(buf, sizeof buf, format, r.lo, r.hi);
    return std::string(buf);
  };
  std::printf("%-12s %10s %10s %10s %10s %12s\n", "  range", text(ttft_range(c, f.ttft[1]), "%.1f-%.1f").c_str(),
              text(tpot_range(c, f.tpot[1]), "%.2f-%.2f").c_str(), text(tpot_range(c, f.itl[1]), "%.2f-%.2f").c_str(),
              text(e2e_range(c, f.e2el[1]), "%.0f-%.0f").c_str(),
              text(throughput_range(c, f.output_throughput), "%.0f-%.0f").c_str());
}

int run_predict(const predict_options& o) {
  engine_options base;
  base.gpu = "h100";
  base.budget_bytes = 0;  // auto
  if (auto applied = o.flags.apply(base); !applied) {
    print_error(applied.error());
    return exit_bad_input;
  }
  if (auto reason = validate(base)) {
    print_error(*reason);
    return exit_bad_input;
  }
  if (o.concurrency.empty() == o.rates.empty()) {
    print_error("give --concurrency C1,C2,... or --rates R1,R2,... (one of them)");
    return exit_bad_input;
  }
  const auto calibrated = o.flags.calibration_given();
  if (!calibrated) {
    print_error(calibrated.error());
    return exit_bad_input;
  }
  std::printf("%-12s %10s %10s %10s %10s %12s\n", o.rates.empty() ? "concurrency" : "rate (RPS)",
              "TTFT p50", "TPOT p50", "ITL p50", "E2EL p50", "output tok/s");
  std::string tables;
  const std::size_t points = o.rates.empty() ? o.concurrency.size() : o.rates.size();
  for (std::size_t i = 0; i < points; ++i) {
    run_description run;
    run.options = base;
    const bool closed = o.rates.empty();
    const double rate = closed ? std::numeric_limits<double>::infinity() : o.rates[i];
    const std::uint32_t c = closed ? o.concurrency[i] : 0;
    const std::uint32_t n = o.num_prompts ? o.num_prompts
                            : closed      ? std::max<std::uint32_t>(10 * c, 100)
                                          : static_cast<std::uint32_t>(std::max(100.0, 60 * rate));
    if (!o.load.empty()) {
      run.load_spec = o.load;
    } else {
      const std::string lengths = "prompt=fixed:" + std::to_string(o.input_len) +
                                  ",output=fixed:" + std::to_string(o.output_len) +
                                  ",count=" + std::to_string(n) + ",seed=" + std::to_string(o.seed);
      char rate_text[32];
      std::snprintf(rate_text, sizeof rate_text, "%.17g", rate);
      run.load_spec = closed ? "gen:concurrency=" + std::to_string(c) + "," + lengths
                             : "gen:rate=" + std::string(rate_text) + "," + lengths;
    }
    if (!o.load.empty() && closed) run.options.max_concurrency = c;
    run_result result;
    try {
      result = run_to_end(run);
    } catch (const load_error& e) {
      print_error(e.what());
      return exit_bad_input;
    }
    const auto f = figures_of(result.summary, closed ? std::optional<std::uint32_t>(c) : std::nullopt, rate);
    char label[32];
    std::snprintf(label, sizeof label, closed ? "%.0f" : "%.3g", closed ? static_cast<double>(c) : rate);
    std::printf("%-12s %10.2f %10.2f %10.2f %10.1f %12.1f\n", label, f.ttft[1], f.tpot[1], f.itl[1],
                f.e2el[1], f.output_throughput);
    if (*calibrated) print_range_row(**calibrated, f);
    tables += bench_table(f, std::string("Simulated, ") + (closed ? "concurrency " : "rate ") + label) + "\n";
  }
  std::printf("(ms; simulated on %s, %s%s)\n\n%s", base.gpu.c_str(), base.model.c_str(),
              !*calibrated                                  ? ""
              : (*calibrated)->basis == band_basis::none    ? "; the calibration gives no range: it fitted as many "
                                                              "parameters as it had figures"
              : (*calibrated)->basis == band_basis::leave_one_out ? "; range: from the calibration's leave-one-out errors"
                                                                  : "; range: from the calibration's residuals",
              tables.c_str());
  return stdout_exit_status();
}

void add_predict_bench(CLI::App& root, int& exit_code) {
  auto o = std::make_shared<predict_options>();
  auto* cmd = root.add_subcommand(
      "predict-bench", "Print the table `vllm bench serve` prints, simulated, for each concurrency "
                       "(closed loop) or request rate, to lay beside a real one");
  engine_options defaults;
  defaults.gpu = "h100";
  defaults.budget_bytes = 0;
  o->flags.add_to(*cmd, in_simulate, defaults);
  cmd->add_option("--concurrency", o->concurrency, "Closed-loop concurrencies, e.g. 1,4,16,64")
      ->delimiter(',')->check(CLI::Range(1u, 1u << 20));
  cmd->add_option("--rates", o->rates, "Request rates (req/s), e.g. 1,2,4")->delimiter(',')->check(CLI::Range(1e-6, 1e9));
  cmd->add_option("--input-len", o->input_len, "Prompt tokens of each request (vLLM's random dataset)")
      ->check(CLI::Range(1u, 1u << 24))->default_val(o->input_len);
  cmd->add_option("--output-len", o->output_len, "Output tokens of each request")
      ->check(CLI::Range(1u, 1u << 24))->default_val(o->output_len);
  cmd->add_option("--num-prompts", o->num_prompts, "Requests per point (default: 10 x concurrency, at least 100)")
      ->check(CLI::Range(1u, 1u << 24));
  cmd->add_option("--bench-load", o->load, "Replay this load instead (e.g. bench:FILE.json), at each concurrency");
  cmd->add_option("--dataset-seed", o->seed, "Seed of the generated requests");
  cmd->callback([o, &exit_code] { exit_code = run_predict(*o); });
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

void print_residuals(const char* title, const std::vector<calibration_residual>& rows) {
  std::printf("%-40s %12s %12s %12s %12s\n", title, "TTFT meas", "TTFT model", "TPOT meas", "TPOT model");
  for (const auto& r : rows) {
    std::printf("%-40s %12.2f %12.2f %12.3f %12.3f  (%+.1f %%, %+.1f %%)\n", r.source.c_str(), r.measured_ttft_ms,
                r.predicted_ttft_ms, r.measured_tpot_ms, r.predicted_tpot_ms,
                100 * (r.predicted_ttft_ms / r.measured_ttft_ms - 1), 100 * (r.predicted_tpot_ms / r.measured_tpot_ms - 1));
  }
}

// What was fitted and what held, the fit's errors in and out of sample, and the band a
// calibrated run's range will come from.
void print_calibration(const calibration& c) {
  std::printf("fitted on %s (%s, tp %u) in %llu simulations: compute efficiency %.4f, memory "
              "efficiency %.4f, KV memory efficiency %.4f, per-layer overhead %.1f us, per-sequence overhead %.1f us\n",
              c.gpu.c_str(), c.model.c_str(), c.tensor_parallel, static_cast<unsigned long long>(c.evaluations),
              c.compute_efficiency, c.memory_efficiency, c.kv_memory_efficiency, 1e6 * c.layer_overhead_s,
              1e6 * c.sequence_overhead_s);
  std::printf("%u independent figures (median TTFT and TPOT of each distinct load) determine %zu parameters: "
              "fitted %s; held at the GPU's defaults: %s\n",
              c.independent_figures, c.fitted.size(), joined(c.fitted).c_str(), joined(c.held).c_str());
  print_residuals("measurement (in sample)", c.residuals);
  std::printf("in-sample rms relative error of the medians: %.1f %%\n", 100 * c.rms_relative_error);
  if (!c.leave_one_out.empty()) {
    print_residuals("left out, predicted by the others' fit", c.leave_one_out);
    std::printf("leave-one-out rms relative error: %.1f %%\n", 100 * c.leave_one_out_rms_relative_error);
  }
  if (c.basis == band_basis::none) {
    std::printf("warning: as many figures as parameters fitted: the in-sample error is 0 by construction and says "
                "nothing about other loads; measure another load (e.g. a higher concurrency) to judge the fit\n");
  } else {
    std::printf("error band (from the %s): TTFT %+.1f %% to %+.1f %%, TPOT %+.1f %% to %+.1f %%\n",
                c.basis == band_basis::leave_one_out ? "leave-one-out errors" : "fit's residuals",
                100 * c.band.ttft_lo, 100 * c.band.ttft_hi, 100 * c.band.tpot_lo, 100 * c.band.tpot_hi);
  }
}

void add_calibrate(CLI::App& root, int& exit_code) {
  struct options {
    run_option_flags flags;
    std::vector<std::string> measured;
    std::string out;
    std::uint32_t max_requests = 0;  // all
  };
  auto o = std::make_shared<options>();
  auto* cmd = root.add_subcommand(
      "calibrate", "Fit the roofline's compute efficiency, per-layer overhead, KV and weight memory efficiency and "
                   "per-sequence overhead (those the measurements determine) to measured `vllm bench serve` results (median TTFT and TPOT), report "
                   "the in-sample and leave-one-out error, and write them for --calibration");
  cmd->add_option("--measured", o->measured, "Result files of `vllm bench serve --save-result`")
      ->required()->check(CLI::ExistingFile);
  cmd->add_option("--out", o->out, "Where to write the calibration (JSON, atomically)")->check(output_file_name())->required();
  cmd->add_option("--max-requests", o->max_requests,
                  "Requests of each measurement replayed per evaluation, the first ones (default: all)")
      ->check(CLI::Range(1u, 1u << 20));
  engine_options defaults;
  defaults.budget_bytes = 0;
  o->flags.add_to(*cmd, in_simulate, defaults);
  cmd->callback([o, &exit_code] {
    engine_options base;
    base.budget_bytes = 0;
    // As the measured servers ran: vLLM keeps every KV block at the model's precision, so a
    // replay that compressed cold blocks would hold more and queue less than they did.
    base.policy = *policy_preset("fp16_only");
    if (auto applied = o->flags.apply(base); !applied) {
      print_error(applied.error());
      exit_code = exit_bad_input;
      return;
    }
    auto inputs = o->flags.file_inputs();
    for (const auto& file : o->measured) inputs.push_back({"--measured", file});
    if (auto problem = check_outputs({{"--out", o->out}}, inputs)) {
      print_error(*problem);
      exit_code = exit_bad_input;
      return;
    }
    std::vector<vllm_bench_result> measured;
    for (const auto& file : o->measured) {
      auto r = read_vllm_bench(file);
      if (!r) {
        print_error(r.error());
        exit_code = exit_bad_input;
        return;
      }
      measured.push_back(std::move(*r));
    }
    calibration_options fit;
    if (o->max_requests > 0) fit.max_requests = o->max_requests;
    auto c = fit_calibration(base, measured, fit);
    if (!c) {
      print_error(c.error());
      exit_code = exit_bad_input;
      return;
    }
    if (auto w = write_file_atomically(o->out, calibration_to_json(*c)); !w) {
      print_error(w.error());
      exit_code = exit_runtime_failure;
      return;
    }
    print_calibration(*c);
    std::printf("written to %s\n", o->out.c_str());
    exit_code = stdout_exit_status();
  });
}

}  // namespace

void add_vllm_bench_commands(CLI::App& root, int& exit_code) {
  add_import_bench(root, exit_code);
  add_predict_bench(root, exit_code);
  add_calibrate(root, exit_code);
}

}  // namespace kvscope::cli
