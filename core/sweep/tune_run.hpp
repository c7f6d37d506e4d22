#pragma once
// The evaluator tune uses: each config of a batch run on its own job (sweep/job_pool.hpp) and
// scored by the metrics the objective and constraints name. With the objective capacity_rps,
// a config's score is its capacity (sweep/capacity_search.hpp): the load's arrival rate times
// the highest rate factor that kept SLO attainment at the target; the constraints are read
// from the run at that rate.
#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>

#include "run/run_description.hpp"
#include "sweep/capacity_search.hpp"
#include "sweep/tune_search.hpp"
#include "util/expected.hpp"

namespace kvscope {

// The objective that asks for a capacity search.
inline constexpr std::string_view capacity_metric = "capacity_rps";

struct tune_run_options {
  unsigned jobs = 1;
  capacity_options capacity;
  double load_rate = 0;             // requests per second of the unscaled load (capacity only)
  std::uint64_t load_requests = 0;  // requests in the load (capacity only)
  const std::atomic<bool>* cancel = nullptr;
  bool reuse = true;  // take an earlier point's run for a run that cannot differ (sweep/run_reuse.hpp)
};

// Checks that the objective and constraints name numeric summary metrics (or capacity_rps as
// objective); errors name the flag.
expected<void, std::string> check_tune_problem(const tune_problem& problem);

// An evaluator over `base`; `engine_runs` counts the engine runs it makes. A config that
// validate() refuses is not run and scores as invalid. Throws what the runs throw.
// Precondition: check_plan() found no bad name or value in the grid.
tune_evaluator make_tune_evaluator(const run_description& base, const tune_problem& problem,
                                   const tune_run_options& options, std::atomic<std::size_t>& engine_runs);

// How many of the engine runs behind `result`'s trials (in evaluation order) repeat an earlier
// one (count_repeats): the runs tune reused, the same whatever the jobs or ranks.
std::size_t count_tune_repeats(const run_description& base, const tune_problem& problem, const tune_result& result);

}  // namespace kvscope
