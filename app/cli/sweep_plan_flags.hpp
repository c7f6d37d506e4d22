#pragma once
// --grid 'NAME=V1,V2 NAME=A:B:STEP ...' or --configs FILE: the configs of a sweep, checked
// against the base run before anything runs (an unknown name or a bad value is exit 2, naming
// the axis or the file's line).
#include <string>
#include <string_view>

#include "run/run_description.hpp"
#include "sweep/sweep_space.hpp"
#include "util/expected.hpp"

namespace CLI {
class App;
}

namespace kvscope::cli {

struct sweep_plan_flags {
  std::string grid;
  std::string configs_path;
  bool skip_invalid = false;

  // Adds --grid, --configs (one of them required) and --skip-invalid.
  void add_to(CLI::App& cmd);
  // The plan, checked; with --skip-invalid, plan.invalid says which configs cannot run.
  expected<sweep_plan, std::string> plan(const run_description& base) const;
};

// The axes of a grid, with every config of their product checked over `base` for bad names
// and values (configs validate() refuses as a whole are left to tune, which skips them).
expected<std::vector<sweep_axis>, std::string> checked_axes(std::string_view grid, const run_description& base);

}  // namespace kvscope::cli
