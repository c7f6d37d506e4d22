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

namespace {

// What a capacity probe leaves for a later config that would repeat it.
struct probe_result {
  capacity_probe probe;
  run_summary summary;  // when it passed
};

// Runs (or reuses) the tune's engine runs; one per evaluator, across its batches. A run is
// offered under its point's place in the evaluation order, so only an earlier point's runs are
// reused, whatever the jobs: the scores are the same bytes either way.
struct tune_reuse {
  explicit tune_reuse(bool enabled) : runs(enabled), probes(enabled) {}
  reuse_cache<run_summary> runs;
  reuse_cache<probe_result> probes;
  std::size_t points_before = 0;  // points of earlier batches
};

run_summary run_or_reuse(tune_reuse& reuse, std::size_t order, const run_description& run,
                         const std::atomic<bool>* cancel, tune_score& score) {
  if (auto done = reuse.runs.find(order, run)) {
    score.runs.push_back({1, facts_of(*done)});
    return *done;
  }
  run_hooks hooks;
  hooks.cancel = cancel;
  auto result = run_to_end(run, hooks);
  if (!result.cancelled) reuse.runs.offer(order, run, facts_of(result.summary), result.summary);
  score.runs.push_back({1, facts_of(result.summary)});
  return std::move(result.summary);
}

capacity_probe probe_or_reuse(tune_reuse& reuse, std::size_t order, const run_description& run, double factor,
                              const tune_run_options& options, run_summary& summary, tune_score& score) {
  const run_description scaled = at_rate(run, factor);
  if (auto done = reuse.probes.find(order, scaled)) {
    score.runs.push_back({factor, facts_of(done->summary)});
    summary = done->summary;
    return done->probe;
  }
  std::optional<reuse_facts> facts;
  probe_result out;
  out.probe = probe_capacity(run, options.load_requests, factor, options.capacity.target, &out.summary,
                             options.cancel, &facts);
  score.runs.push_back({factor, facts});
  if (facts) {
    // A failed probe keeps its facts in the summary it offers, for the probes that reuse it.
    if (!out.probe.pass) out.summary = run_summary{};
    out.summary.peak_usage = facts->peak_usage;
    out.summary.level_transitions = facts->level_transitions;
    out.summary.steps = facts->steps;
    reuse.probes.offer(order, scaled, *facts, out);
  }
  summary = std::move(out.summary);
  return out.probe;
}

capacity_options with_hint(capacity_options options, const capacity_hint& hint) {
  options.hint = hint.rate_factor;
  return options;
}

std::string hint_text(const capacity_hint& hint, double load_rate) {
  if (hint.rate_factor <= 0) return "";
  return "; searched from config " + std::to_string(hint.config) + "'s capacity, " +
         format_significant(hint.rate_factor * load_rate, 4) + " requests/s";
}

tune_score capacity_score(tune_reuse& reuse, std::size_t order, const run_description& run,
                          const tune_problem& problem, const tune_run_options& options,
                          std::atomic<std::size_t>& engine_runs, const capacity_hint& hint) {
  tune_score score;
  // Requests that miss even alone miss at every rate: past 1 - target, no rate can pass.
  const alone_share alone = infeasible_alone_share(run);
  if (alone.share() > 1 - options.capacity.target) {
    score.objective = 0;
    score.constraint_values.assign(problem.constraints.size(), NAN);
    score.infeasible_share = alone.share();
    score.detail = "cannot be had: " + format_significant(100 * alone.share(), 4) +
                   " % of the requests miss their SLOs even alone on an idle server";
    return score;
  }
  run_summary at_capacity{};
  double best_factor = 0;
  std::vector<recorded_run> runs;
  const auto found = search_capacity(
      [&](double factor) {
        run_summary s{};
        tune_score probes;
        auto probe = probe_or_reuse(reuse, order, run, factor, options, s, probes);
        runs.push_back(probes.runs.front());
        ++engine_runs;
        if (probe.pass && factor > best_factor) {
          best_factor = factor;
          at_capacity = std::move(s);
        }
        return probe;
      },
      with_hint(options.capacity, hint));
  score = score_of(problem, at_capacity, found.low * options.load_rate);
  score.capacity_factor = found.low;
  score.runs = std::move(runs);
  score.objective_high = found.high * options.load_rate;
  score.infeasible_share = alone.share();
  // No rate passed: nothing was measured at capacity, so no constraint is known to hold.
  if (best_factor == 0) {
    for (auto& v : score.constraint_values) v = NAN;
    score.figures.clear();
  }
  score.detail = format("bracket %.4g..%.4g requests/s, %zu runs", found.low * options.load_rate,
                        found.high * options.load_rate, found.probes.size()) +
                 stopped_early(found.probes) + hint_text(hint, options.load_rate);
  return score;
}

}  // namespace

std::size_t count_tune_repeats(const run_description& base, const tune_problem& problem, const tune_result& result) {
  std::vector<std::pair<run_description, reuse_facts>> runs;
  for (const auto& trial : result.trials) {
    const run_description run = config_run(base, config_at(problem, grid_point_at(problem, trial.index)));
    for (const auto& r : trial.score.runs) {
      if (r.facts) runs.emplace_back(at_rate(run, r.rate_factor), *r.facts);
    }
  }
  return count_repeats(runs);
}

capacity_hint capacity_hints::nearest(const grid_point& point) const {
  capacity_hint best;
  std::size_t best_distance = SIZE_MAX;
  for (const auto& s : scored_) {
    std::size_t distance = 0;
    for (std::size_t a = 0; a < point.size(); ++a) distance += s.point[a] != point[a];
    if (distance < best_distance) {
      best_distance = distance;
      best = {s.rate_factor, s.config};
    }
  }
  return best;
}

std::vector<capacity_hint> capacity_hints::for_batch(const std::vector<grid_point>& points) const {
  std::vector<capacity_hint> hints;
  hints.reserve(points.size());
  for (const auto& p : points) hints.push_back(nearest(p));
  return hints;
}

void capacity_hints::record(const tune_problem& problem, const std::vector<grid_point>& points,
                            const std::vector<tune_score>& scores) {
  for (std::size_t i = 0; i < points.size() && i < scores.size(); ++i) {
    if (scores[i].capacity_factor > 0) scored_.push_back({points[i], grid_index(problem, points[i]), scores[i].capacity_factor});
  }
}

tune_hinted_evaluator make_hinted_tune_evaluator(const run_description& base, const tune_problem& problem,
                                                 const tune_run_options& options,
                                                 std::atomic<std::size_t>& engine_runs) {
  auto reuse = std::make_shared<tune_reuse>(options.reuse);
  return [&base, &problem, options, &engine_runs, reuse](const std::vector<grid_point>& points,
                                                         const std::vector<capacity_hint>& hints) {
    std::vector<tune_score> scores(points.size());
    const std::atomic<bool> never{false};
    const std::size_t first = reuse->points_before;
    reuse->points_before += points.size();
    run_jobs(points.size(), options.jobs, options.cancel ? *options.cancel : never, [&](std::size_t i) {
      run_description run = config_run(base, config_at(problem, points[i]));
      if (auto resolved = resolve_run_setup(run); !resolved) {  // once: every run below reuses it
        scores[i].objective = NAN;
        scores[i].constraint_values.assign(problem.constraints.size(), NAN);
        scores[i].invalid = resolved.error();
        return;
      }
      if (problem.goal.key != capacity_metric) {
        tune_score& score = scores[i];
        const run_summary summary = run_or_reuse(*reuse, first + i, run, options.cancel, score);
        ++engine_runs;
        auto runs = std::move(score.runs);
        score = score_of(problem, summary, *summary_number(summary, problem.goal.key));
        score.runs = std::move(runs);
        return;
      }
      const capacity_hint hint = i < hints.size() ? hints[i] : capacity_hint{};
      scores[i] = capacity_score(*reuse, first + i, run, problem, options, engine_runs, hint);
    });
    return scores;
  };
}

tune_evaluator make_tune_evaluator(const run_description& base, const tune_problem& problem,
                                   const tune_run_options& options, std::atomic<std::size_t>& engine_runs) {
  auto hinted = make_hinted_tune_evaluator(base, problem, options, engine_runs);
  auto known = std::make_shared<capacity_hints>();
  const bool use_hints = options.capacity_hints;
  return [hinted = std::move(hinted), known, use_hints, &problem](const std::vector<grid_point>& points) {
    auto scores = hinted(points, use_hints ? known->for_batch(points) : std::vector<capacity_hint>(points.size()));
    known->record(problem, points, scores);
    return scores;
  };
}

}  // namespace kvscope
