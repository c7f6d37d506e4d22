#include "output_checks.hpp"

#include <CLI/CLI.hpp>

#include <system_error>

#include "util/output_path.hpp"

namespace kvscope::cli {
namespace {

// Where a write to `path` lands, spelled one way: links resolved, then made absolute and
// normalised, so "m.csv", "./m.csv" and a link to it compare equal before the file exists.
std::filesystem::path landing(const std::string& path) {
  auto resolved = resolve_output_path(path);
  std::filesystem::path p = resolved ? *resolved : std::filesystem::path(path);
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : canonical;
}

std::string quoted(const named_path& p) { return p.option + " " + p.path; }

}  // namespace

CLI::Validator output_file_name() {
  const auto check = [](const std::string& name) {
    return name.empty() ? std::string("an empty file name names no file") : std::string();
  };
  return CLI::Validator(check, "");
}

std::optional<std::string> check_outputs(const std::vector<named_path>& outputs,
                                         const std::vector<named_path>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& out = outputs[i];
    if (out.path.empty()) continue;
    if (out.path == "-") return out.option + ": '-' (stdout) is not supported here; give a file name";
    if (auto usable = check_output_path(out.path); !usable) {
      return out.option + ": " + usable.error();
    }
    for (const auto& in : inputs) {
      if (!in.path.empty() && same_file(out.path, in.path)) {
        return quoted(out) + " is the same file as the input " + quoted(in) +
               ": refusing to overwrite an input";
      }
    }
    for (std::size_t j = 0; j < i; ++j) {
      const auto& other = outputs[j];
      if (other.path.empty()) continue;
      if (same_file(out.path, other.path) || landing(out.path) == landing(other.path)) {
        return quoted(out) + " and " + quoted(other) +
               " are the same file: each output needs its own";
      }
    }
  }
  return std::nullopt;
}

}  // namespace kvscope::cli
