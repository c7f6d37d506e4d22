#pragma once
// Every engine option of a run, declared once: its CLI flag, its key in the session file, its
// type, unit, range, default and one line of help, and where it is shown. The CLI registers its
// flags from this table, the session file reads and writes through it, the GUI takes its
// command-line options and control ranges from it, and sweeps address options by its names.
// To add an option: a field in engine_options (engine/engine_options.hpp) and one entry here.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "engine/engine_options.hpp"
#include "util/expected.hpp"

namespace kvscope {

enum class option_kind : std::uint8_t {
  count,      // unsigned integer
  real,       // double (or a policy float)
  flag,       // bool
  choice,     // one of choices()
  byte_size,  // unsigned bytes, typed as 16GiB, 512MiB or plain bytes ("auto" where auto_ok)
  text,       // a string, checked by check_text (a built-in name, an SLO spec; not a file's contents)
};

// Where an option is shown (bits).
enum option_place : unsigned {
  in_simulate = 1u << 0,  // kvscope-cli simulate (and everything that describes a run)
  in_bench = 1u << 1,     // kvscope-cli bench engine
  in_gui = 1u << 2,       // kvscope's command line and controls
  in_session = 1u << 3,   // a key of the session file's "options" object
};

// A value in the engine's own units (seconds, bytes, fractions).
using option_value = std::variant<std::uint64_t, double, bool, std::string>;

struct option_spec {
  std::string_view flag;  // CLI flag without "--"; also the name sweeps use
  std::string_view key;   // session file key (in_session) and summary/CSV column name
  option_kind kind;
  std::string_view unit;  // as typed on the command line ("ms", "tokens", ...); "" for none
  double min = 0, max = 0;  // inclusive range as typed (count, real)
  double typed_scale = 1;   // engine value = typed value × typed_scale (ms → s)
  std::string_view help;
  unsigned places = 0;
  bool negated = false;  // a flag typed as --no-<name> that sets the value to false
  std::vector<std::string> (*choices)() = nullptr;  // choice: the accepted words; text: named ones
  option_value (*get)(const engine_options&) = nullptr;
  void (*set)(engine_options&, const option_value&) = nullptr;
  // text: why the value cannot be used, or "" when it can (names the flag's subject, not the flag).
  std::string (*check_text)(std::string_view) = nullptr;
  bool auto_ok = false;  // byte_size: "auto" is accepted and stored as 0
  // choice: the word an accepted alias stands for ("sinks+recent" → "sinks_recent"); the text
  // itself when it is no alias.
  std::string (*canonical)(std::string_view) = nullptr;
  // Written to session files and sweep provenances only when it differs from the default, so
  // the files of runs that leave it alone are byte for byte what they were before it existed.
  bool omitted_at_default = false;
};

// The table, in session-file order.
std::span<const option_spec> option_table();
// The entry whose flag or key is `name`; nullptr when there is none.
const option_spec* find_option(std::string_view name);
// True when a file recording `options` writes this option: always, or (omitted_at_default)
// when its value differs from the default's.
bool option_recorded(const option_spec& spec, const engine_options& options);

// True when the text option's `value` names a file rather than one of its named values: a
// config.json for --model, a GPU file for --gpu. What a command must never write over.
bool option_names_file(const option_spec& spec, std::string_view value);
// The files `options` read (model and GPU files), as (option key, path), in table order.
std::vector<std::pair<std::string, std::string>> option_files(const engine_options& options);

// Parses a value as typed (CLI units), checked against the kind, range and choices.
// The error names the flag: "--block-size: expected a whole number in [1, 4096], got '0'".
expected<option_value, std::string> parse_option_text(const option_spec& spec, std::string_view text);
// Checks a value in engine units (what a session file holds) against the range and choices.
std::optional<std::string> check_option_value(const option_spec& spec, const option_value& value);
// The value as one would type it: "16GiB", "10" (ms), "accounting", "true".
std::string format_option_value(const option_spec& spec, const option_value& value);
// "Tokens per block [1..1024 tokens, default 16]": help with range, unit and the default
// (taken from `defaults`).
std::string option_help(const option_spec& spec, const engine_options& defaults = {});

// What makes kvscope-cli simulate run with `options`: for every option of `place` whose value
// differs from `defaults`, "--flag value" ("--no-flag" for a negated flag turned off), the
// value as format_option_value types it, in table order. Values are not shell-quoted.
std::vector<std::string> differing_flags(const engine_options& options, unsigned place = in_simulate,
                                         const engine_options& defaults = {});

// Sets `name` (flag or key) from typed text: what sweeps and --set do.
expected<void, std::string> set_option(engine_options& options, std::string_view name,
                                       std::string_view text);

}  // namespace kvscope
