// `kvscope-cli check-fidelity`: kvscope against published measurements of real vLLM servers
// (tests/data/fidelity/points.csv). Every usable point is simulated as its benchmark ran; the
// table shows predicted beside measured with the signed relative error, then the median |error|
// per figure over all points, per GPU, per source and per tp. --fail-above turns medians into a check.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "commands.hpp"
#include "engine/engine_setup.hpp"
#include "load/load_error.hpp"
#include "output_checks.hpp"
#include "sweep/fidelity.hpp"
#include "sweep/fidelity_fit.hpp"
#include "util/atomic_write.hpp"

namespace kvscope::cli {
namespace {

struct fidelity_cli_options {
  std::string points;
  std::string calibration_path;
  std::string only;
  std::string json;
  std::vector<std::string> fail_above;
  bool fit = false;
  std::string fit_on;
  std::size_t fit_evaluations = 300;
};

// "ttft_p50=35" pairs: the figure and its bound on the overall median |error|, in percent.
expected<std::map<std::size_t, double>, std::string> parse_bounds(const std::vector<std::string>& items) {
  std::map<std::size_t, double> bounds;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    const auto* f = eq == std::string::npos ? nullptr : find_fidelity_figure(item.substr(0, eq));
    if (!f) {
      std::string names;
      for (const auto& g : fidelity_figures()) names += (names.empty() ? "" : ", ") + std::string(g.name);
      return unexpected{"--fail-above: '" + item + "': expected FIGURE=PERCENT, FIGURE one of " + names};
    }
    try {
      std::size_t used = 0;
      const double pct = std::stod(item.substr(eq + 1), &used);
      if (used != item.size() - eq - 1 || !(pct >= 0) || !std::isfinite(pct)) throw std::invalid_argument("");
      bounds[static_cast<std::size_t>(f->figure)] = pct;
    } catch (const std::exception&) {
      return unexpected{"--fail-above: '" + item + "': the bound must be a percentage >= 0"};
    }
  }
  return bounds;
}

int fail_with(const std::string& message, int status) {
  print_error(message);
  return status;
}

std::string percent(double e) {
  if (!std::isfinite(e)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", 100 * e);
  return buf;
}

// " (calibrated)", naming the model and tp the calibration was fitted on when they are not the
// point's: then the point reports how the calibration carries over, not an in-sample fit.
std::string calibrated_text(const fidelity_check& c, const std::optional<calibration>& cal) {
  if (!c.calibrated || !cal) return "";
  const auto& p = *c.point;
  if (cal->model == p.model && std::to_string(cal->tensor_parallel) == p.tp) return " (calibrated)";
  return " (calibrated on " + cal->model + " tp " + std::to_string(cal->tensor_parallel) + ")";
}

void print_point(const fidelity_check& c, const std::optional<calibration>& cal) {
  const auto& p = *c.point;
  const auto& r = p.requests;
  std::printf("%s  %s  %s, %s: %zu requests, %s%s\n", p.id.c_str(), p.source.c_str(), p.gpu.c_str(), p.model.c_str(),
              r.input_lens.size(),
              r.max_concurrency ? ("concurrency " + std::to_string(*r.max_concurrency)).c_str()
              : std::isfinite(r.request_rate) ? ("rate " + std::to_string(r.request_rate)).c_str()
                                              : "all at once",
              calibrated_text(c, cal).c_str());
  for (const auto& f : fidelity_figures()) {
    const auto i = static_cast<std::size_t>(f.figure);
    if (!std::isfinite(p.measured[i])) continue;
    char predicted[32] = "-";  // none when every request was rejected
    if (std::isfinite(c.predicted[i])) std::snprintf(predicted, sizeof predicted, "%.2f", c.predicted[i]);
    std::printf("  %-20s %12.2f %12s %10s  %s\n", f.name.data(), p.measured[i], predicted,
                percent(c.error[i]).c_str(), f.unit.data());
  }
  if (c.rejected) {
    std::printf("  %llu of %zu requests rejected by the simulated server, e.g. %s\n",
                static_cast<unsigned long long>(c.rejected), r.input_lens.size(), c.first_rejection.c_str());
  }
}

void print_medians(const std::vector<fidelity_median>& medians) {
  std::printf("\nMedian |error| per figure (points compared)\n%-14s", "group");
  for (const auto& f : fidelity_figures()) std::printf(" %18s", f.name.data());
  std::printf("\n");
  for (const auto& m : medians) {
    std::printf("%-14s", m.group.c_str());
    for (std::size_t i = 0; i < fidelity_figure_count; ++i) {
      char cell[32] = "-";
      if (m.points[i]) std::snprintf(cell, sizeof cell, "%.1f %% (%zu)", 100 * m.median_abs_error[i], m.points[i]);
      std::printf(" %18s", cell);
    }
    std::printf("\n");
    if (m.kind != "all") continue;
    std::printf("%-14s", "all (signed)");
    for (std::size_t i = 0; i < fidelity_figure_count; ++i) std::printf(" %18s", m.points[i] ? percent(m.median_error[i]).c_str() : "-");
    std::printf("\n");
  }
}

nlohmann::ordered_json number_or_null(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); }

std::string report_json(const std::string& points_file, const std::vector<fidelity_point>& skipped,
                        const std::vector<fidelity_check>& checks, const std::vector<fidelity_median>& medians) {
  nlohmann::ordered_json j;
  j["points_file"] = points_file;
  auto& points = j["points"] = nlohmann::ordered_json::array();
  for (const auto& c : checks) {
    const auto& p = *c.point;
    nlohmann::ordered_json o{{"id", p.id}, {"source", p.source}, {"source_url", p.source_url}, {"gpu", p.gpu},
                             {"model", p.model}, {"calibrated", c.calibrated}, {"finished", c.finished},
                             {"rejected", c.rejected}, {"first_rejection", c.first_rejection}};
    o["figures"] = nlohmann::ordered_json::object();
    for (const auto& f : fidelity_figures()) {
      const auto i = static_cast<std::size_t>(f.figure);
      if (!std::isfinite(p.measured[i])) continue;
      o["figures"][std::string(f.name)] = {{"measured", p.measured[i]}, {"predicted", number_or_null(c.predicted[i])},
                                           {"error", number_or_null(c.error[i])}};
    }
    points.push_back(std::move(o));
  }
  auto& unusable = j["unusable"] = nlohmann::ordered_json::array();
  for (const auto& p : skipped) unusable.push_back({{"id", p.id}, {"reason", p.unusable_reason}});
  auto& out = j["medians"] = nlohmann::ordered_json::array();
  for (const auto& m : medians) {
    nlohmann::ordered_json o{{"kind", m.kind}, {"group", m.group}};
    for (const auto& f : fidelity_figures()) {
      const auto i = static_cast<std::size_t>(f.figure);
      if (!m.points[i]) continue;
      o["median_abs_error"][std::string(f.name)] = m.median_abs_error[i];
      o["median_error"][std::string(f.name)] = m.median_error[i];
      o["points"][std::string(f.name)] = m.points[i];
    }
    out.push_back(std::move(o));
  }
  return j.dump(2) + "\n";
}

// What the table does not show: unusable rows, a calibration no point used, rejected requests.
void print_notes(const std::vector<fidelity_point>& skipped, const std::vector<fidelity_check>& checks,
                 const std::optional<calibration>& c) {
  for (const auto& p : skipped) std::printf("%s: not simulated: %s\n", p.id.c_str(), p.unusable_reason.c_str());
  if (c && std::none_of(checks.begin(), checks.end(), [](const fidelity_check& k) { return k.calibrated; })) {
    std::printf("note: the calibration was fitted on GPU '%s'; no point checked ran on it\n", c->gpu.c_str());
  }
  std::string rejecting;
  for (const auto& k : checks) {
    if (k.rejected) rejecting += (rejecting.empty() ? "" : ", ") + k.point->id;
  }
  if (!rejecting.empty()) {
    std::printf("points whose simulated server rejected requests (not compared where none finished): %s\n",
                rejecting.c_str());
  }
}

// The points to simulate after --only, each checked by validate() before any run.
expected<std::vector<const fidelity_point*>, std::string> select_points(const std::vector<fidelity_point>& all,
                                                                        const fidelity_cli_options& o,
                                                                        const std::optional<calibration>& c) {
  std::vector<const fidelity_point*> chosen;
  for (const auto& p : all) {
    if (!p.unusable_reason.empty() || (!o.only.empty() && p.gpu != o.only && p.source != o.only)) continue;
    if (auto why = validate(fidelity_options(p, c))) {
      return unexpected{o.points + ":" + std::to_string(p.line) + ": point " + p.id + ": " + *why};
    }
    chosen.push_back(&p);
  }
  if (chosen.empty()) return unexpected{"no usable point" + (o.only.empty() ? std::string() : " on GPU or source '" + o.only + "'") + " in " + o.points};
  return chosen;
}

void print_factors(const timing_factors& f) {
  std::printf("compute_efficiency %.4f, memory_efficiency %.4f, kv_memory_efficiency %.4f, step_overhead %.1f us, "
              "layer_overhead %.2f us, sequence_overhead %.2f us; V0 engine: step %.1f us, layer %.2f us, "
              "sequence %.2f us\n",
              f.compute_efficiency, f.memory_efficiency, f.kv_memory_efficiency, 1e6 * f.step_overhead_s,
              1e6 * f.layer_overhead_s, 1e6 * f.sequence_overhead_s, 1e6 * f.v0_step_overhead_s,
              1e6 * f.v0_layer_overhead_s, 1e6 * f.v0_sequence_overhead_s);
  for (const auto& [gpu, share] : f.sustained_share_by_gpu) {
    std::printf("sustained_share of %s %.4f (against %.*s)\n", gpu.c_str(), share,
                static_cast<int>(sustained_share_reference_gpu.size()), sustained_share_reference_gpu.data());
  }
}

// --fit: the factors every GPU shares, fitted on the chosen points (all of them reported);
// --fit-on GROUP: fitted on the chosen points of that GPU or source, reported on the others.
expected<std::pair<timing_factors, std::vector<const fidelity_point*>>, std::string> fit_factors(
    const std::vector<const fidelity_point*>& chosen, const fidelity_cli_options& o) {
  std::vector<const fidelity_point*> fit_set, held_out;
  std::size_t not_fitted = 0;
  for (const auto* p : chosen) {
    const bool in_group = o.fit_on.empty() || p->gpu == o.fit_on || p->source == o.fit_on;
    if (in_group && !p->not_fitted_reason.empty()) {
      ++not_fitted;
      std::printf("%s: reported, not fitted: %s\n", p->id.c_str(), p->not_fitted_reason.c_str());
      continue;
    }
    (in_group ? fit_set : held_out).push_back(p);
  }
  if (fit_set.empty()) return unexpected{"--fit-on: no chosen point runs on GPU or comes from source '" + o.fit_on + "'"};
  if (!o.fit_on.empty() && held_out.empty()) {
    return unexpected{"--fit-on: every chosen point is in '" + o.fit_on + "': none is left to report on"};
  }
  std::printf("fitting the shared step-time factors on %zu points, %zu left out (at most %zu evaluations)\n",
              fit_set.size(), not_fitted, o.fit_evaluations);
  const auto fitted = fit_timing_factors(fit_set, o.fit_evaluations, [](std::size_t n, double cost) {
    if (stderr_is_terminal()) std::fprintf(stderr, "check-fidelity: fit: evaluation %zu, cost %.5f\n", n, cost);
  });
  std::printf("fitted after %zu evaluations, cost %.5f (mean squared log error per point):\n", fitted.evaluations,
              fitted.cost);
  print_factors(fitted.factors);
  if (!o.fit_on.empty()) std::printf("reporting on the %zu points held out of the fit\n\n", held_out.size());
  return std::pair{fitted.factors, o.fit_on.empty() ? chosen : held_out};
}

int run_check(const fidelity_cli_options& o) {
  if (auto problem = check_outputs({{"--json", o.json}}, {{"--points", o.points}, {"--calibration", o.calibration_path}})) {
    print_error(*problem);
    return exit_bad_input;
  }
  const auto bounds = parse_bounds(o.fail_above);
  if (!bounds) return fail_with(bounds.error(), exit_bad_input);
  std::optional<calibration> c;
  if (!o.calibration_path.empty()) {
    auto read = read_calibration(o.calibration_path);
    if (!read) return fail_with("--calibration: " + read.error(), exit_bad_input);
    c = std::move(*read);
  }
  const auto all = read_fidelity_points(o.points);
  if (!all) return fail_with(all.error(), exit_bad_input);
  const auto chosen = select_points(*all, o, c);
  if (!chosen) return fail_with(chosen.error(), exit_bad_input);

  timing_factors factors;
  auto report = *chosen;
  if (o.fit || !o.fit_on.empty()) {
    auto fitted = fit_factors(*chosen, o);
    if (!fitted) return fail_with(fitted.error(), exit_bad_input);
    factors = fitted->first;
    report = std::move(fitted->second);
  }

  std::vector<fidelity_check> checks;
  std::printf("%-22s %12s %12s %10s\n", "point / figure", "measured", "predicted", "error");
  for (const auto* p : report) {
    const auto start = std::chrono::steady_clock::now();
    try {
      checks.push_back(check_fidelity_point(*p, c, factors));
    } catch (const std::exception& e) {  // a load_error or options validate() refused
      return fail_with(o.points + ":" + std::to_string(p->line) + ": point " + p->id + ": " + e.what(), exit_bad_input);
    }
    print_point(checks.back(), c);
    if (stderr_is_terminal()) {
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      std::fprintf(stderr, "check-fidelity: %zu/%zu %s done in %.1f s\n", checks.size(), report.size(), p->id.c_str(), took.count());
    }
  }
  std::vector<fidelity_point> skipped;
  for (const auto& p : *all) {
    if (!p.unusable_reason.empty()) skipped.push_back(p);
  }
  print_notes(skipped, checks, c);
  const auto medians = fidelity_medians(checks);
  print_medians(medians);
  if (!o.json.empty()) {
    if (auto w = write_file_atomically(o.json, report_json(o.points, skipped, checks, medians)); !w) {
      return fail_with(w.error(), exit_runtime_failure);
    }
  }
  int status = stdout_exit_status();
  for (const auto& [i, bound] : *bounds) {
    const auto& overall = medians.front();
    if (overall.points[i] && 100 * overall.median_abs_error[i] > bound) {
      char text[160];
      std::snprintf(text, sizeof text, "median |error| of %s is %.1f %%, above the bound of %g %%",
                    fidelity_figures()[i].name.data(), 100 * overall.median_abs_error[i], bound);
      print_error(text);
      status = exit_runtime_failure;
    }
  }
  return status;
}

}  // namespace

void add_fidelity_command(CLI::App& root, int& exit_code) {
  auto o = std::make_shared<fidelity_cli_options>();
  auto* cmd = root.add_subcommand(
      "check-fidelity", "Simulate published measurements of real vLLM servers and print predicted vs measured, "
                        "the signed relative error and the median |error| per figure, GPU and source");
  cmd->add_option("--points", o->points, "The points file (the repository's: tests/data/fidelity/points.csv)")
      ->required()->check(CLI::ExistingFile);
  cmd->add_option("--calibration", o->calibration_path,
                  "A calibration from `kvscope-cli calibrate`, applied to the points on its GPU")
      ->check(CLI::ExistingFile);
  cmd->add_option("--only", o->only, "Only the points of this GPU (kvscope's name, e.g. h100) or source (e.g. gpustack)");
  cmd->add_option("--json", o->json, "Also write every point and median as JSON (atomically)");
  cmd->add_option("--fail-above", o->fail_above,
                  "Exit 1 when an overall median |error| exceeds its bound: FIGURE=PERCENT,... "
                  "(e.g. ttft_p50=35,output_throughput=25)")
      ->delimiter(',');
  cmd->add_flag("--fit", o->fit,
               "Fit the step-time factors every GPU shares (three efficiencies, step, layer and sequence overheads) "
               "and the sustained share of each GPU but the A100 80GB with three points or more "
               "to the chosen points, print them, and report with them");
  cmd->add_option("--fit-on", o->fit_on,
                  "Cross-validation: fit on the points of this GPU or source, report on the others");
  cmd->add_option("--fit-evaluations", o->fit_evaluations, "At most this many runs of the set while fitting")
      ->check(CLI::Range(1, 100000));
  cmd->callback([o, &exit_code] { exit_code = run_check(*o); });
}

}  // namespace kvscope::cli
