#pragma once
// The engine options of the option table (run/option_table.hpp) as CLI11 flags: registered from
// the table, so their names, help, defaults and ranges are written once.
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine_options.hpp"
#include "model/calibration.hpp"
#include "output_checks.hpp"
#include "run/option_table.hpp"
#include "util/expected.hpp"

namespace CLI {
class App;
}

namespace kvscope::cli {

class run_option_flags {
 public:
  // Adds --<flag> for every table option shown at `place` (option_place bits); the help shows
  // the defaults of `defaults`.
  void add_to(CLI::App& cmd, unsigned place, const engine_options& defaults = {});
  // Writes what was typed over `options`; the first bad value's message names its flag.
  expected<void, std::string> apply(engine_options& options) const;
  // The --calibration file given (read again; apply() has checked it), or nothing: what a run's
  // output takes its ranges from.
  expected<std::optional<calibration>, std::string> calibration_given() const;
  // What was typed, as "--flag value" (or "--no-flag"), in table order.
  std::vector<std::string> given() const;
  // The files the typed options read (--calibration, a --model or --gpu that names a file):
  // what no output of the command may replace.
  std::vector<named_path> file_inputs() const;

 private:
  struct typed {
    const option_spec* spec;
    std::string text;
    bool given = false;  // a negated flag (--no-prefix-caching) was given
  };
  std::deque<typed> typed_;  // stable addresses: CLI11 writes into them
  std::string calibration_path_;  // --calibration FILE: the three roofline fit values
};

// A core message that opens with an option's key ("model: ...", "tensor_parallel: ...") opened
// with the flag typed instead ("--model: ...", "--tp: ..."); any other message unchanged.
std::string with_flag_name(const std::string& message);

}  // namespace kvscope::cli
