#include "sweep/tuned_file.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "io/policy_file.hpp"
#include "kvscope_version.hpp"
#include "util/atomic_write.hpp"

namespace kvscope {
namespace {

using json = nlohmann::ordered_json;

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json config_json(const sweep_config& config) {
  json j = json::object();
  for (const auto& s : config) j[s.name] = s.value;
  return j;
}

json score_json(const tune_problem& problem, const tune_score& score) {
  json j = json::object();
  j[problem.goal.key] = number(score.objective);
  for (std::size_t i = 0; i < problem.constraints.size(); ++i) {
    j[problem.constraints[i].key] = number(score.constraint_values[i]);
  }
  if (!score.detail.empty()) j["detail"] = score.detail;
  if (!score.invalid.empty()) j["invalid"] = score.invalid;
  return j;
}

}  // namespace

std::filesystem::path provenance_path(const std::filesystem::path& config_path) {
  return config_path.string() + ".provenance.json";
}

std::string provenance_json(const tune_problem& problem, const tune_result& result,
                            const tune_provenance& p) {
  json j;
  j["kvscope_version"] = version_string;
  j["tool"] = "kvscope-cli tune";
  j["load"] = {{"spec", p.load}, {"checksum", p.load_checksum}};
  j["model"] = p.model;
  j["gpu"] = p.gpu;
  j["budget_bytes"] = p.budget_bytes;
  if (p.budget_auto) j["budget_auto"] = true;
  j["slo"] = p.slo;
  j["fixed_options"] = p.fixed_options;
  j["objective"] = to_string(problem.goal);
  if (p.capacity_target > 0) j["capacity_target_slo_attainment"] = p.capacity_target;
  j["constraints"] = json::array();
  for (const auto& c : problem.constraints) j["constraints"].push_back(to_string(c));
  j["chosen"] = {{"index", result.best_index},
                 {"config", config_json(config_at(problem, result.best))},
                 {"feasible", result.feasible},
                 {"score", score_json(problem, result.score)},
                 {"figures", json::object()}};
  for (const auto& [key, value] : result.score.figures) j["chosen"]["figures"][key] = number(value);
  j["search"] = {{"method", p.method},
                 {"axes", json::object()},
                 {"grid_configs", result.grid_size},
                 {"configs_run", result.trials.size()},
                 {"engine_runs", p.engine_runs}};
  if (p.reused_runs) j["search"]["reused_runs"] = *p.reused_runs;
  for (const auto& a : problem.axes) j["search"]["axes"][a.name] = a.values;
  j["runs"] = json::array();
  for (const auto& t : result.trials) {
    j["runs"].push_back({{"index", t.index},
                         {"config", config_json(config_at(problem, grid_point_at(problem, t.index)))},
                         {"feasible", t.feasible},
                         {"score", score_json(problem, t.score)}});
  }
  // A load path or config value need not be UTF-8: replace what is not rather than fail.
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

expected<void, std::string> write_tuned(const std::filesystem::path& config_path, const policy_config& config,
                                        const tune_problem& problem, const tune_result& result,
                                        const tune_provenance& provenance, export_check check) {
  if (auto r = write_policy_config(config_path, config, nullptr, check); !r) return r;
  return write_file_atomically(provenance_path(config_path), provenance_json(problem, result, provenance));
}

}  // namespace kvscope
