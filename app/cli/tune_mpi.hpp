#pragma once
// `mpirun -n N kvscope-cli tune ...`: rank 0 runs the search, and each batch of configs it asks to
// score (a grid, or one axis line of a descent, each config a capacity search or one run) is
// handed out to the other ranks one config at a time as they ask; their scores come back by grid
// index, so the search sees exactly what one process computes and picks the same config.
#include <atomic>
#include <cstddef>
#include <memory>
#include <string>

#include "sweep/tune_run.hpp"
#include "sweep/tune_search.hpp"
#include "sweep_exec.hpp"

namespace kvscope::cli {

// Rank 0's side: the worker ranks for the life of the object. Destruction tells every worker to
// stop (also after an exception or an interrupt), waiting for any still scoring a config.
class tune_workers {
 public:
  explicit tune_workers(const mpi_session& mpi);
  ~tune_workers();
  tune_workers(const tune_workers&) = delete;
  tune_workers& operator=(const tune_workers&) = delete;

  // Scores a batch on the worker ranks; `engine_runs` gains the workers' engine runs. With
  // `capacity_hints`, each config's capacity search starts from the hint one process would give
  // it (sweep/tune_run.hpp), sent with the config. Throws the first error a worker reports. Both
  // references must outlive the evaluator.
  tune_evaluator evaluator(const tune_problem& problem, std::atomic<std::size_t>& engine_runs, bool capacity_hints);

 private:
  struct state;
  std::shared_ptr<state> state_;
};

// Every other rank: scores the configs rank 0 hands out with `local` until told to stop.
// Returns the first error of its own runs ("" when none).
std::string serve_tune(const mpi_session& mpi, const tune_problem& problem, const tune_hinted_evaluator& local,
                       const std::atomic<std::size_t>& engine_runs);

}  // namespace kvscope::cli
