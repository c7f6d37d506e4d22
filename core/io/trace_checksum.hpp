#pragma once
// A session names its input files by path: the trace, and the model and GPU when they are
// .json files. Their SHA-256 (recorded when the session is written) tells a replay whether those
// paths still hold the bytes the session was run on.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "run/run_description.hpp"

namespace kvscope {

// The file a load spec reads: "" for a generated load ("gen:..."), the result file of a
// "bench:FILE" load, the spec itself otherwise.
std::string load_file_of(std::string_view spec);

// Calls visit(what, path, sha256) for each file `run` reads: its trace ("trace"), a model
// config.json ("model file") and a GPU file ("GPU file"), with the path and the recorded checksum
// as references that `visit` may change (a bench: spec keeps its prefix).
void for_each_input_file(
    run_description& run,
    const std::function<void(std::string_view what, std::string& path, std::string& sha256)>& visit);

enum class trace_check_result {
  generated,   // nothing to check: the load is generated from its spec
  unrecorded,  // the session predates checksums (or the trace is unreadable now): not checked
  matches,
  differs,
};

struct trace_check {
  trace_check_result result = trace_check_result::generated;
  // For unrecorded and differs: a sentence naming the session, the file and both checksums.
  std::string message;
};

// Compares the run's trace with the checksum its session (named `session` in messages) recorded.
trace_check check_trace_checksum(const run_description& run, std::string_view session);

// The same for every input file of the run; only those unrecorded or changed, in the order of
// for_each_input_file.
std::vector<trace_check> check_input_checksums(const run_description& run, std::string_view session);

}  // namespace kvscope
