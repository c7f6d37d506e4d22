#include "io/trace_checksum.hpp"

#include "util/sha256.hpp"

namespace kvscope {

std::string load_file_of(std::string_view spec) {
  if (spec.starts_with("gen:")) return {};
  if (spec.starts_with("bench:")) return std::string(spec.substr(6));
  return std::string(spec);
}

trace_check check_trace_checksum(const run_description& run, std::string_view session) {
  const std::string trace = load_file_of(run.load_spec);
  if (trace.empty()) return {};
  const std::string where = std::string(session) + ": trace " + trace;
  if (run.trace_sha256.empty()) {
    return {trace_check_result::unrecorded,
            where + ": the session records no checksum of it (written by an older kvscope); not checked"};
  }
  // An unreadable trace is reported by the run itself, with the reader's own message.
  const auto now = sha256_file(trace);
  if (!now) return {trace_check_result::unrecorded, now.error()};
  if (*now == run.trace_sha256) return {trace_check_result::matches, {}};
  return {trace_check_result::differs, where + " has changed since the session was recorded: sha256 " +
                                           run.trace_sha256 + " recorded, " + *now + " now"};
}

}  // namespace kvscope
