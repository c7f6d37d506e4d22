#pragma once
// The evaluator tune uses: each config of a batch run on its own job (sweep/job_pool.hpp) and
// scored by the metrics the objective and constraints name. With the objective capacity_rps,
// a config's score is its capacity (sweep/capacity_search.hpp): the load's arrival rate times
// the highest rate factor that kept SLO attainment at the target; the constraints are read
// from the run at that rate.
#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>
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
  // Start each capacity search from the capacity of the nearest config of an earlier batch
  // (capacity_options::hint): the same brackets on a monotone load, in fewer runs.
  bool capacity_hints = true;
};

// Where a capacity search starts (capacity_options::hint): the capacity of the config already
// scored that differs from this one in the fewest axes, the earliest such. Taken from earlier
// batches only, so that it, and every score, is the same whatever the jobs or ranks.
struct capacity_hint {
  double rate_factor = 0;  // 0: none, the search starts from the load's own rate
  std::size_t config = 0;  // the grid index it came from
};

// The capacities scored in the batches so far, and the hint each new point takes from them.
class capacity_hints {
 public:
  capacity_hint nearest(const grid_point& point) const;
  std::vector<capacity_hint> for_batch(const std::vector<grid_point>& points) const;
  // Adds a batch's capacities (the scores with a capacity_factor), after it is scored.
  void record(const tune_problem& problem, const std::vector<grid_point>& points, const std::vector<tune_score>& scores);

 private:
  struct scored {
    grid_point point;
    std::size_t config = 0;
    double rate_factor = 0;
  };
  std::vector<scored> scored_;
};

// Scores a batch, each capacity search from the hint given for its point (none: from 1).
using tune_hinted_evaluator =
    std::function<std::vector<tune_score>(const std::vector<grid_point>&, const std::vector<capacity_hint>&)>;

// Checks that the objective and constraints name numeric summary metrics (or capacity_rps as
// objective); errors name the flag.
expected<void, std::string> check_tune_problem(const tune_problem& problem);

// An evaluator over `base`; `engine_runs` counts the engine runs it makes. A config that
// validate() refuses is not run and scores as invalid. Throws what the runs throw.
// Precondition: check_plan() found no bad name or value in the grid.
// With options.capacity_hints, each batch's capacity searches start from the hints of the
// batches before (capacity_hints).
tune_evaluator make_tune_evaluator(const run_description& base, const tune_problem& problem,
                                   const tune_run_options& options, std::atomic<std::size_t>& engine_runs);

// The same runs with the hints given by the caller: an MPI worker, whose hints rank 0 chooses.
tune_hinted_evaluator make_hinted_tune_evaluator(const run_description& base, const tune_problem& problem,
                                                 const tune_run_options& options,
                                                 std::atomic<std::size_t>& engine_runs);

// How many of the engine runs behind `result`'s trials (in evaluation order) repeat an earlier
// one (count_repeats): the runs tune reused, the same whatever the jobs or ranks.
std::size_t count_tune_repeats(const run_description& base, const tune_problem& problem, const tune_result& result);

}  // namespace kvscope
