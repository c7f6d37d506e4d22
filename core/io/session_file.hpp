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

// 2: timing, gpu, tensor_parallel, gpu_memory_utilization, max_model_len and slo options.
inline constexpr int session_format_version = 2;

std::string session_to_json(const run_description& s);
// Errors name the source and the offending field: "FILE: field 'options.budget_bytes': ...".
expected<run_description, std::string> session_from_json(std::string_view text, std::string_view source);
expected<run_description, std::string> read_session(const std::filesystem::path& path);
expected<void, std::string> write_session(const std::filesystem::path& path, const run_description& s);

}  // namespace kvscope
