#include "load_options.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "load/load_error.hpp"

namespace kvscope::cli {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void add_load_options(CLI::App& cmd, load_options& options) {
  cmd.add_option("--load", options.spec,
                 "The load: a trace file (Azure 2023/2024, BurstGPT, Mooncake, Vidur or kvscope "
                 "JSONL) or a generator spec such as "
                 "'gen:rate=4,burstiness=0.5,prompt=lognormal:1000:0.8,output=uniform:200:0.5,"
                 "duration=600,seed=7' (docs/load-formats.md)")
      ->required();
  cmd.add_option("--format", options.format,
                 "Trace format, detected from the first line by default")
      ->check(CLI::IsMember(load_format_names()))
      ->default_str("auto");
  cmd.add_flag("--skip-bad-rows", options.skip_bad_rows,
               "Skip malformed rows and report how many, instead of refusing the load");
}

std::unique_ptr<request_source> open_load(const load_options& options) {
  read_options read;
  read.skip_bad_rows = options.skip_bad_rows;
  // CLI11 has checked the name already.
  const load_format format = parse_load_format(options.format).value_or(load_format::automatic);
  return kvscope::open_load(options.spec, format, read);
}

progress_printer::progress_printer(std::string what)
    : what_(std::move(what)), enabled_(stderr_is_terminal()), start_s_(now_s()) {}

progress_printer::~progress_printer() { finish(); }

void progress_printer::operator()(const request_source& source) {
  if (!enabled_) return;
  const double t = now_s();
  if (t - start_s_ < 1.0 || t - last_s_ < 0.2) return;  // small loads: no progress line at all
  last_s_ = t;
  shown_ = true;
  std::fprintf(stderr, "\r%s: %3.0f%% (%llu requests)", what_.c_str(), 100.0 * source.progress(),
               static_cast<unsigned long long>(source.counters().requests));
  std::fflush(stderr);
}

progress_fn progress_printer::callback() {
  return [this](const request_source& source) { (*this)(source); };
}

void progress_printer::finish() {
  if (!shown_) return;
  shown_ = false;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
}

void report_skipped(const request_source& source) {
  const auto& c = source.counters();
  if (c.failed_requests > 0) {
    std::cerr << "kvscope-cli: " << c.failed_requests
              << " failed requests (0 response tokens) skipped\n";
  }
  if (c.bad_rows == 0) return;
  std::cerr << "kvscope-cli: " << c.bad_rows << " bad rows skipped";
  if (c.bad_rows > c.bad_row_messages.size()) {
    std::cerr << " (the first " << c.bad_row_messages.size() << " below)";
  }
  std::cerr << ":\n";
  for (const auto& m : c.bad_row_messages) std::cerr << "  " << m << '\n';
}

int report_load_error(const load_error& error, const load_options& options) {
  std::cerr << error.what() << '\n';
  if (error.kind() == load_error_kind::io_failure) return exit_runtime_failure;
  if (error.is_bad_row() && !options.skip_bad_rows) {
    std::cerr << "kvscope-cli: load refused; --skip-bad-rows skips bad rows and counts them\n";
  }
  return exit_bad_input;
}

}  // namespace kvscope::cli
