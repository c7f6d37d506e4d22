#include "io/trace_checksum.hpp"

#include "util/json_fields.hpp"
#include "util/sha256.hpp"

namespace kvscope {
namespace {

constexpr std::string_view bench_prefix = "bench:";

trace_check check_file(std::string_view what, const std::string& path, const std::string& recorded,
                       std::string_view session) {
  const std::string where = std::string(session) + ": " + std::string(what) + " " + path;
  if (recorded.empty()) {
    return {trace_check_result::unrecorded,
            where + ": the session records no checksum of it (written by an older kvscope); not checked"};
  }
  // An unreadable file is reported by the run itself, with the reader's own message.
  const auto now = sha256_file(path);
  if (!now) return {trace_check_result::unrecorded, now.error()};
  if (*now == recorded) return {trace_check_result::matches, {}};
  return {trace_check_result::differs, where + " has changed since the session was recorded: sha256 " +
                                           recorded + " recorded, " + *now + " now"};
}

}  // namespace

std::string load_file_of(std::string_view spec) {
  if (spec.starts_with("gen:")) return {};
  if (spec.starts_with(bench_prefix)) return std::string(spec.substr(bench_prefix.size()));
  return std::string(spec);
}

void for_each_input_file(
    run_description& run,
    const std::function<void(std::string_view what, std::string& path, std::string& sha256)>& visit) {
  if (std::string trace = load_file_of(run.load_spec); !trace.empty()) {
    const bool bench = run.load_spec.starts_with(bench_prefix);
    visit("trace", trace, run.trace_sha256);
    run.load_spec = (bench ? std::string(bench_prefix) : std::string()) + trace;
  }
  if (detail::names_json_file(run.options.model)) visit("model file", run.options.model, run.model_sha256);
  if (detail::names_json_file(run.options.gpu)) visit("GPU file", run.options.gpu, run.gpu_sha256);
}

trace_check check_trace_checksum(const run_description& run, std::string_view session) {
  const std::string trace = load_file_of(run.load_spec);
  if (trace.empty()) return {};
  return check_file("trace", trace, run.trace_sha256, session);
}

std::vector<trace_check> check_input_checksums(const run_description& run, std::string_view session) {
  std::vector<trace_check> found;
  run_description copy = run;
  for_each_input_file(copy, [&](std::string_view what, std::string& path, std::string& sha256) {
    auto check = check_file(what, path, sha256, session);
    if (check.result != trace_check_result::matches) found.push_back(std::move(check));
  });
  return found;
}

}  // namespace kvscope
