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
inline constexpr int session_format_version = 2;

std::string session_to_json(const run_description& s);
// Errors name the source and the offending field: "FILE: field 'options.budget_bytes': ...".
expected<run_description, std::string> session_from_json(std::string_view text, std::string_view source);
expected<run_description, std::string> read_session(const std::filesystem::path& path);
// Records the SHA-256 of a trace file's bytes in the session unless `s` carries one already
// (load.trace_sha256); a trace that cannot be read is an error naming it.
expected<void, std::string> write_session(const std::filesystem::path& path, run_description s);

}  // namespace kvscope
