// `kvscope-cli info`: what a load holds — requests, tokens, duration, skipped rows, length
// percentiles — and, with --timing, how fast it is read.
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "commands.hpp"
#include "load/load_error.hpp"
#include "load/load_summary.hpp"
#include "load_options.hpp"

namespace kvscope::cli {
namespace {

struct info_options {
  load_options load;
  bool json = false;
  bool timing = false;
  int repeat = 5;
};

struct timing_result {
  int repeats = 0;
  double best_s = 0;
  std::uint64_t rows = 0;
  std::uint64_t bytes = 0;
};

// Reads the whole load `repeat` times, keeping the fastest: open + parse + hand out every request.
timing_result time_reading(const info_options& opt) {
  timing_result t;
  t.repeats = opt.repeat;
  t.best_s = std::numeric_limits<double>::infinity();
  for (int i = 0; i < opt.repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto source = open_load(opt.load);
    request r;
    while (source->next(r)) {
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (s < t.best_s) t.best_s = s;
    t.rows = source->counters().rows;
    t.bytes = source->bytes_read();
  }
  return t;
}

nlohmann::ordered_json percentiles(const length_histogram& h) {
  return {{"p50", h.percentile(50)}, {"p90", h.percentile(90)}, {"p99", h.percentile(99)},
          {"max", h.max()}};
}

double mean_rate(const load_summary& s) {
  return s.duration_s() > 0 ? static_cast<double>(s.requests - 1) / s.duration_s() : 0.0;
}

void print_text(const info_options& opt, const request_source& source, const load_summary& s) {
  const auto& c = source.counters();
  auto lengths = [](const length_histogram& h) {
    return "p50 " + std::to_string(h.percentile(50)) + ", p90 " + std::to_string(h.percentile(90)) +
           ", p99 " + std::to_string(h.percentile(99)) + ", max " + std::to_string(h.max());
  };
  std::printf("load            %s\n", opt.load.spec.c_str());
  std::printf("format          %s\n", std::string(source.format_name()).c_str());
  std::printf("requests        %llu\n", static_cast<unsigned long long>(s.requests));
  std::printf("prompt tokens   %llu  (%s)\n", static_cast<unsigned long long>(s.prompt_tokens),
              lengths(s.prompt_lengths).c_str());
  std::printf("output tokens   %llu  (%s)\n", static_cast<unsigned long long>(s.output_tokens),
              lengths(s.output_lengths).c_str());
  std::printf("duration        %.3f s  (%.3f requests/s)\n", s.duration_s(), mean_rate(s));
  std::printf("skipped rows    %llu  (%llu bad, %llu failed requests)\n",
              static_cast<unsigned long long>(c.skipped_rows()),
              static_cast<unsigned long long>(c.bad_rows),
              static_cast<unsigned long long>(c.failed_requests));
  if (c.clamped_times > 0) {
    std::printf("clamped times   %llu  (up to 1 ms earlier than the row before)\n",
                static_cast<unsigned long long>(c.clamped_times));
  }
  if (s.requests_with_prefix > 0) {
    std::printf("prefix hashes   %llu requests, %llu blocks\n",
                static_cast<unsigned long long>(s.requests_with_prefix),
                static_cast<unsigned long long>(s.prefix_blocks));
  }
}

nlohmann::ordered_json info_json(const info_options& opt, const request_source& source,
                                 const load_summary& s) {
  const auto& c = source.counters();
  return {{"load", opt.load.spec},
          {"format", std::string(source.format_name())},
          {"requests", s.requests},
          {"prompt_tokens", s.prompt_tokens},
          {"output_tokens", s.output_tokens},
          {"duration_s", s.duration_s()},
          {"mean_rate_per_s", mean_rate(s)},
          {"rows", c.rows},
          {"skipped_rows", c.skipped_rows()},
          {"bad_rows", c.bad_rows},
          {"failed_requests", c.failed_requests},
          {"clamped_times", c.clamped_times},
          {"prompt_percentiles", percentiles(s.prompt_lengths)},
          {"output_percentiles", percentiles(s.output_lengths)},
          {"requests_with_prefix", s.requests_with_prefix},
          {"prefix_blocks", s.prefix_blocks}};
}

int run_info(const info_options& opt) {
  try {
    auto source = open_load(opt.load);
    load_summary summary;
    {
      progress_printer progress(opt.load.spec);
      for_each_request(*source, [&](const request& r) { summary.add(r); }, progress.callback());
    }
    report_skipped(*source);
    std::optional<timing_result> timing;
    if (opt.timing) timing = time_reading(opt);

    if (opt.json) {
      auto out = info_json(opt, *source, summary);
      if (timing) {
        out["timing"] = {{"repeats", timing->repeats},
                         {"best_s", timing->best_s},
                         {"rows", timing->rows},
                         {"bytes", timing->bytes},
                         {"rows_per_s", static_cast<double>(timing->rows) / timing->best_s},
                         {"mb_per_s", static_cast<double>(timing->bytes) / 1e6 / timing->best_s}};
      }
      std::cout << out.dump(2) << '\n';
    } else {
      print_text(opt, *source, summary);
      if (timing) {
        std::printf("read time       best of %d: %.6f s, %.0f rows/s", timing->repeats,
                    timing->best_s, static_cast<double>(timing->rows) / timing->best_s);
        if (timing->bytes > 0) {
          std::printf(", %.1f MB/s (%llu bytes)",
                      static_cast<double>(timing->bytes) / 1e6 / timing->best_s,
                      static_cast<unsigned long long>(timing->bytes));
        }
        std::printf("\n");
      }
    }
    return stdout_exit_status();
  } catch (const load_error& e) {
    std::fflush(stdout);
    return report_load_error(e, opt.load);
  }
}

}  // namespace

void add_info_command(CLI::App& root, int& exit_code) {
  auto opt = std::make_shared<info_options>();
  auto* cmd = root.add_subcommand(
      "info",
      "Summarize a load: requests, prompt and output tokens (totals and p50/p90/p99), duration, "
      "skipped rows. A bad row refuses the load (exit 2) unless --skip-bad-rows.");
  add_load_options(*cmd, opt->load);
  cmd->add_flag("--json", opt->json,
                "Print one JSON object (keys requests, prompt_tokens, output_tokens, duration_s, "
                "skipped_rows, ...)");
  cmd->add_flag("--timing", opt->timing,
                "Also time reading the load (best of --repeat runs) and print rows/s and MB/s");
  cmd->add_option("--repeat", opt->repeat, "Runs for --timing")
      ->check(CLI::Range(1, 1000))
      ->default_str("5");
  cmd->callback([opt, &exit_code] { exit_code = run_info(*opt); });
}

}  // namespace kvscope::cli
