#pragma once
// A session file: a run_description as versioned JSON — everything needed to reproduce a run
// exactly. Reading what was written gives the same description; replaying it the same bytes.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "run/run_description.hpp"
#include "util/expected.hpp"

namespace kvscope {

// 2: timing, gpu, tensor_parallel, gpu_memory_utilization, max_model_len and slo options; later
// load.trace_sha256 (optional, only for trace files, so sessions of generated loads are unchanged).
// 3: files.model_sha256 and files.gpu_sha256 (only for .json files), and relative paths of the
// trace, model and GPU files are relative to the session's own folder, not the working directory.
inline constexpr int session_format_version = 3;

std::string session_to_json(const run_description& s);
// Errors name the source and the offending field: "FILE: field 'options.budget_bytes': ...".
expected<run_description, std::string> session_from_json(std::string_view text, std::string_view source);
// Relative paths of input files (format 3 on) come back joined to `path`'s folder.
expected<run_description, std::string> read_session(const std::filesystem::path& path);
// What write_session writes to `path`: the SHA-256 of each input file's bytes (trace, model and
// GPU .json files) unless `s` carries one already, and their relative paths rewritten relative
// to `path`'s folder. A file that cannot be read is an error naming it.
expected<std::string, std::string> session_file_text(const std::filesystem::path& path, run_description s);
// session_file_text, written atomically.
expected<void, std::string> write_session(const std::filesystem::path& path, run_description s);

}  // namespace kvscope
