#pragma once
// The load options every load-consuming subcommand shares (info, record, simulate):
//   --load SPEC (a trace path or a "gen:" spec), --format F, --skip-bad-rows
// plus opening the load, progress on stderr and reporting of skipped rows and load errors.
#include <memory>
#include <string>

#include "load/open_load.hpp"
#include "load/request_source.hpp"

namespace CLI {
class App;
}

namespace kvscope {
class load_error;
}

namespace kvscope::cli {

struct load_options {
  std::string spec;
  std::string format = "auto";
  bool skip_bad_rows = false;
};

// Adds --load (required), --format and --skip-bad-rows to `cmd`, stored in `options`.
void add_load_options(CLI::App& cmd, load_options& options);

// Opens the load the options name. Throws load_error.
std::unique_ptr<request_source> open_load(const load_options& options);

// Progress on stderr ("\r<spec>: 42% (1.2M requests)"), only when stderr is a terminal and the
// load has taken more than a second so far; finish() clears the line. Pass it as a progress_fn.
class progress_printer {
 public:
  explicit progress_printer(std::string what);
  ~progress_printer();
  progress_printer(const progress_printer&) = delete;
  progress_printer& operator=(const progress_printer&) = delete;

  void operator()(const request_source& source);
  progress_fn callback();
  void finish();

 private:
  std::string what_;
  bool enabled_;
  bool shown_ = false;
  double start_s_, last_s_ = 0;
};

// After a load was read with --skip-bad-rows: "N bad rows skipped" plus the first messages, and
// BurstGPT's failed requests, on stderr. Silent when nothing was skipped.
void report_skipped(const request_source& source);

// Prints a load error (and a hint about --skip-bad-rows for bad rows) on stderr; returns the exit
// code: 2 for bad input, 1 for I/O failures.
int report_load_error(const load_error& error, const load_options& options);

}  // namespace kvscope::cli
