#pragma once
// A session names its trace by path; the trace's SHA-256 (recorded when the session is written)
// tells a replay whether that path still holds the bytes the session was run on.
#include <string>
#include <string_view>

#include "run/run_description.hpp"

namespace kvscope {

// The file a load spec reads: "" for a generated load ("gen:..."), the result file of a
// "bench:FILE" load, the spec itself otherwise.
std::string load_file_of(std::string_view spec);

enum class trace_check_result {
  generated,   // nothing to check: the load is generated from its spec
  unrecorded,  // the session predates checksums (or the trace is unreadable now): not checked
  matches,
  differs,
};

struct trace_check {
  trace_check_result result = trace_check_result::generated;
  // For unrecorded and differs: a sentence naming the session, the trace and both checksums.
  std::string message;
};

// Compares the run's trace with the checksum its session (named `session` in messages) recorded.
trace_check check_trace_checksum(const run_description& run, std::string_view session);

}  // namespace kvscope
