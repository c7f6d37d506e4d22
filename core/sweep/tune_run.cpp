#include "sweep/tune_run.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

#include "run/metric_table.hpp"
#include "run/run_service.hpp"
#include "sweep/config_apply.hpp"
#include "sweep/job_pool.hpp"
#include "sweep/sweep_run.hpp"
#include "util/closest_name.hpp"
#include "util/number_text.hpp"

namespace kvscope {
namespace {

// What a capacity planner reads of a run beside the objective and the constraints.
constexpr std::string_view figure_keys[] = {"goodput_rps",        "slo_attainment",     "attention_error_exposure",
                                            "latency.ttft_s.p99", "latency.tpot_s.p99", "preemptions",
                                            "transitions_per_hour", "peak_usage"};

tune_score score_of(const tune_problem& problem, const run_summary& summary, double objective) {
  tune_score score;
  score.objective = objective;
  for (const auto& c : problem.constraints) score.constraint_values.push_back(*summary_number(summary, c.key));
  for (auto key : figure_keys) score.figures.emplace_back(key, *summary_number(summary, key));
  return score;
}

// The names an objective or a constraint may take, for "did you mean".
std::vector<std::string_view> metric_names(bool with_capacity) {
  std::vector<std::string_view> names;
  for (const auto& m : summary_metric_table()) {
    if (is_summary_number(m.info.key)) names.push_back(m.info.key);
  }
  if (with_capacity) names.push_back(capacity_metric);
  return names;
}

std::string format(const char* fmt, double a, double b, std::size_t runs) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, a, b, runs);
  return buf;
}

// ", N stopped early at M % of their requests" when any probe stopped as soon as it could not
// pass (an overloaded one counts, its share unknown); "" otherwise.
std::string stopped_early(const std::vector<capacity_probe>& probes) {
  std::size_t stopped = 0, known = 0;
  double share_sum = 0;
  for (const auto& p : probes) {
    if (std::isnan(p.completed_share)) {
      ++stopped;  // overloaded: its queue overflowed
    } else if (p.completed_share < 1) {
      ++stopped;
      ++known;
      share_sum += p.completed_share;
    }
  }
  if (stopped == 0) return "";
  if (known == 0) return ", " + std::to_string(stopped) + " stopped early";
  char buf[96];
  std::snprintf(buf, sizeof buf, ", %zu stopped early (at %.0f %% of their requests on average)", stopped,
                100 * share_sum / static_cast<double>(known));
  return buf;
}

}  // namespace

expected<void, std::string> check_tune_problem(const tune_problem& problem) {
  if (problem.goal.key == capacity_metric) {
    if (problem.goal.dir != direction::maximize) {
      return unexpected{std::string("--objective: capacity_rps is maximized: write max:capacity_rps")};
    }
  } else if (!is_summary_number(problem.goal.key)) {
    return unexpected{"--objective: '" + problem.goal.key +
                      "' is not a numeric summary metric (see the columns of a sweep CSV), nor capacity_rps" +
                      did_you_mean(problem.goal.key, metric_names(true))};
  }
  for (const auto& c : problem.constraints) {
    if (!is_summary_number(c.key)) {
      return unexpected{"--constraint: '" + c.key + "' is not a numeric summary metric" +
                        did_you_mean(c.key, metric_names(false))};
    }
  }
  return {};
}

tune_evaluator make_tune_evaluator(const run_description& base, const tune_problem& problem,
                                   const tune_run_options& options, std::atomic<std::size_t>& engine_runs) {
  return [&base, &problem, options, &engine_runs](const std::vector<grid_point>& points) {
    std::vector<tune_score> scores(points.size());
    const std::atomic<bool> never{false};
    run_jobs(points.size(), options.jobs, options.cancel ? *options.cancel : never, [&](std::size_t i) {
      run_description run = config_run(base, config_at(problem, points[i]));
      if (auto resolved = resolve_run_setup(run); !resolved) {  // once: every run below reuses it
        scores[i].objective = NAN;
        scores[i].constraint_values.assign(problem.constraints.size(), NAN);
        scores[i].invalid = resolved.error();
        return;
      }
      if (problem.goal.key != capacity_metric) {
        run_hooks hooks;
        hooks.cancel = options.cancel;
        const auto result = run_to_end(run, hooks);
        ++engine_runs;
        scores[i] = score_of(problem, result.summary, *summary_number(result.summary, problem.goal.key));
        return;
      }
      // Requests that miss even alone miss at every rate: past 1 - target, no rate can pass.
      const alone_share alone = infeasible_alone_share(run);
      if (alone.share() > 1 - options.capacity.target) {
        scores[i].objective = 0;
        scores[i].constraint_values.assign(problem.constraints.size(), NAN);
        scores[i].infeasible_share = alone.share();
        scores[i].detail = "cannot be had: " + format_significant(100 * alone.share(), 4) +
                           " % of the requests miss their SLOs even alone on an idle server";
        return;
      }
      run_summary at_capacity{};
      double best_factor = 0;
      const auto found = search_capacity(
          [&](double factor) {
            run_summary s{};
            auto probe = probe_capacity(run, options.load_requests, factor, options.capacity.target, &s,
                                        options.cancel);
            ++engine_runs;
            if (probe.pass && factor > best_factor) {
              best_factor = factor;
              at_capacity = std::move(s);
            }
            return probe;
          },
          options.capacity);
      scores[i] = score_of(problem, at_capacity, found.low * options.load_rate);
      scores[i].objective_high = found.high * options.load_rate;
      scores[i].infeasible_share = alone.share();
      // No rate passed: nothing was measured at capacity, so no constraint is known to hold.
      if (best_factor == 0) {
        for (auto& v : scores[i].constraint_values) v = NAN;
        scores[i].figures.clear();
      }
      scores[i].detail = format("bracket %.4g..%.4g requests/s, %zu runs", found.low * options.load_rate,
                                found.high * options.load_rate, found.probes.size()) +
                         stopped_early(found.probes);
    });
    return scores;
  };
}

}  // namespace kvscope
