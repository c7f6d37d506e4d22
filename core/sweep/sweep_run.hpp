#pragma once
// The runs behind sweeps, tune and capacity search: one config's run to its CSV row, a
// summary's numbers by metric key, what the load is (rate, checksum) and one capacity probe.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "run/summary_compare.hpp"
#include "run/run_description.hpp"
#include "run/run_summary.hpp"
#include "sweep/capacity_search.hpp"
#include "sweep/run_reuse.hpp"
#include "sweep/sweep_space.hpp"

namespace kvscope {

// Runs config `index` of `plan` over `base` and returns its CSV row, or nullopt when `cancel`
// stopped it (a config the plan marks invalid is not run: its row has empty metric cells). Throws what the run throws (load_error, std::invalid_argument).
// With `reuse`, a config whose run would repeat an earlier config's finished run takes that
// run's metric cells instead (sweep/run_reuse.hpp), and a config that runs offers its own.
std::optional<std::string> sweep_config_row(const run_description& base, const sweep_plan& plan,
                                            std::size_t index, const std::atomic<bool>* cancel,
                                            reuse_cache<std::string>* reuse = nullptr);

// Runs configs `todo` (indices into plan.configs, ascending) on `jobs` threads
// (sweep/job_pool.hpp): `started()` as each begins, `done(index, row, wall_seconds)` as each
// ends, both on the job threads. Once `cancel` is true no further config starts and the running
// ones stop (their rows are not delivered). Rethrows the first run's exception once every
// thread has finished. With `reuse`, runs that cannot differ are run once (sweep/run_reuse.hpp),
// also from `earlier` (rows of the plan a resumed sweep kept, by index): the rows are the same
// bytes either way.
void run_sweep_rows(const run_description& base, const sweep_plan& plan, const std::vector<std::size_t>& todo,
                    unsigned jobs, const std::atomic<bool>& cancel, const std::function<void()>& started,
                    const std::function<void(std::size_t, std::string, double)>& done, bool reuse = true,
                    const std::map<std::size_t, std::string>& earlier = {});

// How many of the configs of `rows` (CSV rows of `plan` by index) repeat the run of an earlier
// one, counted from the rows' figures (count_repeats): the same whatever ran, was reused, or how
// many jobs, ranks or shards made the rows. Rows with empty metrics are skipped.
struct sweep_repeats {
  std::size_t repeats = 0;
  std::size_t configs = 0;  // rows with metrics
};
sweep_repeats count_sweep_repeats(const run_description& base, const sweep_plan& plan,
                                  const std::map<std::size_t, std::string>& rows);

// True when `key` names a numeric summary metric (its value: summary_number, run/summary_compare).
bool is_summary_number(std::string_view key);

// What a tuned config's provenance and a capacity search need to know of a load.
struct load_facts {
  std::uint64_t requests = 0;
  double last_arrival_s = 0;
  // "sha256:<hex>" of a trace file's bytes, or of a "gen:" spec's canonical spelling.
  std::string checksum;
  // Requests per second of arrivals: (requests - 1) / last arrival; 0 when undefined.
  double rate() const noexcept;
};

// Reads the load once (arrivals unscaled). Throws load_error.
load_facts read_load_facts(const run_description& run);
// "sha256:<hex>" of the run's trace file's bytes, or of its "gen:" spec's canonical spelling
// (so two spellings of one generated load are one load); "" when the file cannot be read.
std::string load_checksum(const run_description& run);

// How many of the load's requests miss the run's SLOs even alone on an idle server (the step
// model's estimate, outcome/slo_misses.hpp): no arrival rate serves them in time. Reads the load
// once; `run` must be resolved (resolve_run_setup). Throws load_error.
struct alone_share {
  std::uint64_t requests = 0;
  std::uint64_t infeasible = 0;
  double share() const noexcept {
    return requests ? static_cast<double>(infeasible) / static_cast<double>(requests) : 0.0;
  }
};
alone_share infeasible_alone_share(const run_description& run);

// `run` with its arrivals at `rate_factor` times their rate.
run_description at_rate(const run_description& run, double rate_factor);

// Runs `run` with its arrivals at `rate_factor` times their rate and checks its SLO attainment
// against `target`. Stops as soon as so many of the load's `requests` missed their SLOs that
// the target is out of reach. `summary` receives the run's summary when it passed; `facts` the
// run's reuse facts when it ended or stopped by itself (not overloaded, not cancelled).
capacity_probe probe_capacity(const run_description& run, std::uint64_t requests, double rate_factor,
                              double target, run_summary* summary, const std::atomic<bool>* cancel,
                              std::optional<reuse_facts>* facts = nullptr);

}  // namespace kvscope
