#include "sweep_plan_flags.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>

#include "sweep/config_apply.hpp"
#include "util/text_file.hpp"

namespace kvscope::cli {

void sweep_plan_flags::add_to(CLI::App& cmd) {
  auto* g = cmd.add_option("--grid", grid,
                           "Axes: 'q8_threshold=0.6,0.8 ewma_alpha=0.1:0.5:0.2 ...' (any simulate option by flag or "
                           "key, '_' for '-'; preset; policy FILE; rate_scale X: arrivals X times as fast); the "
                           "cartesian product, last axis fastest")
                ->type_name("AXES");
  auto* c = cmd.add_option("--configs", configs_path, "File of configs, one per line: 'name=value name=value ...'")
                ->check(CLI::ExistingFile);
  g->excludes(c);
  c->excludes(g);
  cmd.add_flag("--skip-invalid", skip_invalid,
               "Configs refused as a whole (q4_threshold below q8_threshold, a budget too small) get a row with empty "
               "metrics instead of stopping the sweep");
}

expected<sweep_plan, std::string> sweep_plan_flags::plan(const run_description& base) const {
  expected<sweep_plan, std::string> p = unexpected{std::string("give --grid or --configs")};
  if (!grid.empty()) {
    auto axes = parse_grid(grid);
    if (!axes) return unexpected{axes.error()};
    p = grid_plan(*axes);
  } else if (!configs_path.empty()) {
    auto text = read_text_file(configs_path);
    if (!text) return unexpected{text.error()};
    p = parse_config_lines(*text, configs_path);
  }
  if (!p) return p;
  auto checked = check_plan(base, *p, skip_invalid);
  if (!checked) return unexpected{checked.error()};
  if (std::any_of(checked->begin(), checked->end(), [](const std::string& r) { return !r.empty(); })) {
    p->invalid = std::move(*checked);
  }
  return p;
}

expected<std::vector<sweep_axis>, std::string> checked_axes(std::string_view grid, const run_description& base) {
  auto axes = parse_grid(grid, "--space");
  if (!axes) return axes;
  auto p = grid_plan(*axes, "--space");
  if (!p) return unexpected{p.error()};
  if (auto checked = check_plan(base, *p, true); !checked) return unexpected{checked.error()};
  return axes;
}

}  // namespace kvscope::cli
