#pragma once
// Running a sweep's configs: on job threads in this process, or over MPI ranks (rank 0 hands
// out config indices on request and gathers the rows, the other ranks run them). Either way
// the rows go to a sweep_sink, which writes them in index order: the same bytes.
#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "run/run_description.hpp"
#include "sweep/sweep_space.hpp"
#include "sweep_sink.hpp"

namespace kvscope::cli {

struct sweep_exec_outcome {
  bool interrupted = false;
  std::string error;  // the first run that failed, "" when none
};

// This machine's name, for logs.
std::string host_name();

// Runs configs `todo` (indices into plan.configs) on `jobs` threads; with `reuse`, a run that
// cannot differ from an earlier config's, or from a row of `earlier` (--resume), is not run
// again (sweep/run_reuse.hpp).
sweep_exec_outcome run_sweep_local(const run_description& base, const sweep_plan& plan,
                                   const std::vector<std::size_t>& todo, unsigned jobs, sweep_sink& sink,
                                   const std::atomic<bool>& interrupt, bool reuse,
                                   const std::map<std::size_t, std::string>& earlier);

// The ranks the launcher (mpirun, srun) started this process among: 1 when it was not.
int launcher_world_size();
// True when this kvscope-cli was built with MPI (-DKVSCOPE_MPI=ON).
bool built_with_mpi();

// MPI for the life of the object: initialized at construction, finalized at the end.
class mpi_session {
 public:
  mpi_session();
  ~mpi_session();
  mpi_session(const mpi_session&) = delete;
  mpi_session& operator=(const mpi_session&) = delete;
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }

 private:
  int rank_ = 0, size_ = 1;
};

// Joins the MPI job this process was launched in, if any: `mpi` stays empty for a plain start.
// Returns the error to print (exit 2) when the launch cannot work: a build without MPI (then
// `alternative` says what to do instead), or tasks MPI sees as singletons, which would each run
// the whole job.
std::optional<std::string> join_launch(std::optional<mpi_session>& mpi, const std::string& alternative);

// Rank 0: hands out `todo` to the other ranks as they ask and puts their rows into `sink`;
// returns once every other rank has been told to stop (at once when `todo` is empty).
sweep_exec_outcome coordinate_sweep(const mpi_session& mpi, const std::vector<std::size_t>& todo, sweep_sink& sink,
                                    const std::atomic<bool>& interrupt);
// Every other rank: asks rank 0 for configs and runs them until told to stop. Returns the first
// error of its own runs ("" when none).
std::string serve_sweep(const mpi_session& mpi, const run_description& base, const sweep_plan& plan,
                        const std::atomic<bool>& interrupt, bool reuse);

}  // namespace kvscope::cli
