#include "sweep/sweep_run.hpp"

#include <charconv>
#include <chrono>

#include "engine/step_pricing.hpp"
#include "load/generator_spec.hpp"
#include "memory/model_shape.hpp"
#include "outcome/slo.hpp"
#include "run/metric_table.hpp"
#include "run/run_service.hpp"
#include "sweep/config_apply.hpp"
#include "sweep/job_pool.hpp"
#include "sweep/sweep_table.hpp"
#include "util/sha256.hpp"

namespace kvscope {

namespace {

// A row's run, its facts and its metric cells, read back from the row's text.
struct row_run {
  std::size_t index = 0;
  run_description run;
  reuse_facts facts;
  std::string metric_cells;
};

// The rows with metrics (a config that cannot run has none) whose config cells are the plan's.
std::vector<row_run> rows_runs(const run_description& base, const sweep_plan& plan,
                               const std::map<std::size_t, std::string>& rows) {
  std::string text = sweep_header(plan.columns);
  for (const auto& [index, row] : rows) text += row;
  const auto table = parse_csv(text, "sweep rows");
  if (!table) return {};
  const std::size_t peak = table->column("peak_usage").value_or(0);
  const std::size_t transitions = table->column("level_transitions").value_or(0);
  const std::size_t steps = table->column("steps").value_or(0);
  if (peak == 0 || transitions == 0 || steps == 0) return {};
  std::vector<row_run> out;
  for (std::size_t r = 0; r < table->rows.size(); ++r) {
    const auto& cells = table->rows[r];
    const auto index = row_index(*table, r, "sweep rows");
    if (!index || *index >= plan.configs.size() || cells[peak].empty()) continue;
    const sweep_config& config = plan.configs[*index];
    const std::string& row = table->row_text[r];
    const std::string labels = sweep_row_with_metrics(*index, plan.columns, config, "");  // its cells and '\n'
    if (!row.starts_with(std::string_view(labels).substr(0, labels.size() - 1))) continue;
    row_run run{*index, config_run(base, config), {}, row.substr(labels.size() - 1, row.size() - labels.size())};
    // Shortest round-trip text: read back, each is the run's exact figure.
    const auto read = [&](std::size_t column, auto& value) {
      const std::string& cell = cells[column];
      std::from_chars(cell.data(), cell.data() + cell.size(), value);
    };
    read(peak, run.facts.peak_usage);
    read(transitions, run.facts.level_transitions);
    read(steps, run.facts.steps);
    out.push_back(std::move(run));
  }
  return out;
}

}  // namespace

std::optional<std::string> sweep_config_row(const run_description& base, const sweep_plan& plan,
                                            std::size_t index, const std::atomic<bool>* cancel,
                                            reuse_cache<std::string>* reuse) {
  const sweep_config& config = plan.configs[index];
  if (index < plan.invalid.size() && !plan.invalid[index].empty()) {
    return sweep_invalid_row(index, plan.columns, config);
  }
  const run_description run = config_run(base, config);
  // The row is labelled with this config's own values: only the metrics are the earlier run's,
  // and those are the figures this config's run would have produced.
  if (reuse) {
    if (auto cells = reuse->find(index, run)) return sweep_row_with_metrics(index, plan.columns, config, *cells);
  }
  run_hooks hooks;
  hooks.cancel = cancel;
  const auto result = run_to_end(run, hooks);
  if (result.cancelled) return std::nullopt;
  std::string cells = sweep_metric_cells(result.summary);
  if (reuse) reuse->offer(index, run, facts_of(result.summary), cells);
  return sweep_row_with_metrics(index, plan.columns, config, cells);
}

void run_sweep_rows(const run_description& base, const sweep_plan& plan, const std::vector<std::size_t>& todo,
                    unsigned jobs, const std::atomic<bool>& cancel, const std::function<void()>& started,
                    const std::function<void(std::size_t, std::string, double)>& done, bool reuse,
                    const std::map<std::size_t, std::string>& earlier) {
  // The job pool hands out `todo` in order, so every config a row may reuse started before it;
  // one still running is not waited for (the row is the same bytes when run).
  reuse_cache<std::string> cache(reuse);
  if (reuse) {
    for (auto& r : rows_runs(base, plan, earlier)) cache.offer(r.index, r.run, r.facts, std::move(r.metric_cells));
  }
  run_jobs(todo.size(), jobs, cancel, [&](std::size_t t) {
    if (started) started();
    const auto start = std::chrono::steady_clock::now();
    auto row = sweep_config_row(base, plan, todo[t], &cancel, &cache);
    if (!row) return;  // cancelled
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    done(todo[t], std::move(*row), took.count());
  });
}

sweep_repeats count_sweep_repeats(const run_description& base, const sweep_plan& plan,
                                  const std::map<std::size_t, std::string>& rows) {
  std::vector<std::pair<run_description, reuse_facts>> runs;
  for (auto& r : rows_runs(base, plan, rows)) runs.emplace_back(std::move(r.run), r.facts);
  return {count_repeats(runs), runs.size()};
}

bool is_summary_number(std::string_view key) { return summary_number(run_summary{}, key).has_value(); }

double load_facts::rate() const noexcept {
  return requests > 1 && last_arrival_s > 0 ? static_cast<double>(requests - 1) / last_arrival_s : 0;
}

load_facts read_load_facts(const run_description& run) {
  run_description plain = run;
  plain.arrival_time_scale = 1;
  load_facts facts;
  auto source = open_run_load(plain);
  request r;
  while (source->next(r)) {
    ++facts.requests;
    facts.last_arrival_s = r.arrival_s;
  }
  facts.checksum = load_checksum(run);
  return facts;
}

std::string load_checksum(const run_description& run) {
  if (run.load_spec.rfind("gen:", 0) == 0) {
    const auto spec = parse_generator_spec(run.load_spec);
    return "sha256:" + sha256_hex(spec ? to_string(*spec) : run.load_spec);
  }
  auto digest = sha256_file(run.load_spec);
  return digest ? "sha256:" + *digest : "";
}

alone_share infeasible_alone_share(const run_description& run) {
  alone_share out;
  const engine_setup& setup = *run.setup;
  if (setup.slo.empty()) return out;
  const step_pricing pricing(setup, shape_of(setup.model).fp16_bytes_per_token());
  auto source = open_run_load(run);
  request r;
  while (source->next(r)) {
    ++out.requests;
    if (infeasible_alone(setup.slo, r.output_tokens, pricing.alone(r.prompt_tokens, r.output_tokens))) ++out.infeasible;
  }
  return out;
}

run_description at_rate(const run_description& run, double rate_factor) {
  run_description scaled = run;
  scaled.arrival_time_scale = run.arrival_time_scale / rate_factor;
  return scaled;
}

capacity_probe probe_capacity(const run_description& run, std::uint64_t requests, double rate_factor,
                              double target, run_summary* summary, const std::atomic<bool>* cancel,
                              std::optional<reuse_facts>* facts) {
  const run_description scaled = at_rate(run, rate_factor);
  std::atomic<bool> hopeless{false};
  bool interrupted = false;
  capacity_probe probe;
  probe.rate_factor = rate_factor;
  run_hooks hooks;
  hooks.cancel = &hopeless;
  // Every step: could the run still reach the target if every request not yet done met its
  // SLOs? Once not, it cannot pass, and the rest of the run is not needed to know.
  hooks.on_step = [&](const engine& e) {
    if (cancel && cancel->load(std::memory_order_relaxed)) interrupted = hopeless = true;
    if (requests == 0) return;
    const auto counts = e.outcomes().counts();
    const std::uint64_t missed = counts.missed();
    if (missed <= requests && static_cast<double>(requests - missed) / static_cast<double>(requests) < target) {
      probe.completed_share = static_cast<double>(counts.finished + counts.rejected) / static_cast<double>(requests);
      hopeless = true;
    }
  };
  run_result result;
  try {
    result = run_to_end(scaled, hooks);
  } catch (const overload_error&) {
    probe.completed_share = NAN;  // not known here; far past capacity, a failed trial
    return probe;  // its queue passed max_waiting_requests
  }
  // Stopped as hopeless, the run is still the same for every config that would repeat it: the
  // same steps reach the same point where the target is out of reach.
  if (facts && !interrupted) *facts = facts_of(result.summary);
  if (result.cancelled) return probe;
  probe.attainment = result.summary.service.slo_attainment;
  probe.pass = probe.attainment >= target;
  if (probe.pass && summary) *summary = std::move(result.summary);
  return probe;
}

}  // namespace kvscope
