#pragma once
// One entry point for every kind of load: a "gen:" spec or a trace file in any known format,
// detected from its first line unless the caller names the format.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "load/request_source.hpp"

namespace kvscope {

enum class load_format { automatic, azure, burstgpt, mooncake, vidur, native };

// "auto", "azure", "burstgpt", "mooncake", "vidur", "native".
std::string_view format_name(load_format f) noexcept;
// The inverse of format_name; nullopt for anything else.
std::optional<load_format> parse_load_format(std::string_view name) noexcept;
// Every name parse_load_format accepts, "auto" first.
std::vector<std::string> load_format_names();

// The format a file's first non-blank line announces, or a load_error (bad_input) saying why it
// is none of them (binary data, unknown header, JSON that is neither native nor Mooncake).
// `source_name` names the file in the message.
load_format detect_format(std::string_view first_line, std::string_view source_name);

// Opens `spec`: "gen:..." builds a generator (then `format` must be automatic), anything else is
// a file path read in `format`. Throws load_error for a bad spec, a missing or unreadable file, an
// unknown format or a bad header; rows are checked as they are read.
std::unique_ptr<request_source> open_load(std::string_view spec, load_format format,
                                          const read_options& options);

// As open_load for a file, with the file's bytes given (tests and fuzzing); `name` stands for it.
std::unique_ptr<request_source> open_load_text(std::string name, std::string_view content,
                                               load_format format, const read_options& options);

}  // namespace kvscope
