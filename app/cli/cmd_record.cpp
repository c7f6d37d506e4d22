// `kvscope-cli record`: write any load (generated or a trace) in kvscope's native JSONL format,
// streamed to a temp file and renamed into place, so a big trace never sits in memory.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "cli_support.hpp"
#include "commands.hpp"
#include "load/generator_spec.hpp"
#include "load/load_error.hpp"
#include "load/native_format.hpp"
#include "load_options.hpp"
#include "output_checks.hpp"

namespace kvscope::cli {
namespace {

struct record_options {
  load_options load;
  std::string out;
};

int run_record(const record_options& opt) {
  // Before reading anything: an --out that cannot be written, or that is the trace being read.
  const std::string trace = opt.load.spec.starts_with("gen:") ? std::string() : opt.load.spec;
  if (auto problem = check_outputs({{"--out", opt.out}}, {{"--load", trace}})) {
    print_error(*problem);
    return exit_bad_input;
  }
  try {
    auto source = open_load(opt.load);
    // A generated load is recorded under its canonical spec, every default spelled out.
    std::string description = opt.load.spec;
    if (description.starts_with("gen:")) {
      if (auto spec = parse_generator_spec(description)) description = to_string(*spec);
    }
    std::uint64_t n = 0;
    {
      progress_printer progress(opt.load.spec);
      n = record_native(*source, opt.out, description, progress.callback());
    }
    report_skipped(*source);
    std::printf("%s: %llu requests recorded\n", opt.out.c_str(), static_cast<unsigned long long>(n));
    return stdout_exit_status();
  } catch (const load_error& e) {
    std::fflush(stdout);
    return report_load_error(e, opt.load);
  }
}

}  // namespace

void add_record_command(CLI::App& root, int& exit_code) {
  auto opt = std::make_shared<record_options>();
  auto* cmd = root.add_subcommand(
      "record",
      "Record a load (generated or a trace) to kvscope's native JSONL format, written atomically; "
      "replaying the file gives the same requests.");
  add_load_options(*cmd, opt->load);
  cmd->add_option("--out", opt->out, "Output file (.jsonl)")->check(output_file_name())->required();
  cmd->callback([opt, &exit_code] { exit_code = run_record(*opt); });
}

}  // namespace kvscope::cli
