#include "sweep_exec.hpp"

#include <unistd.h>

#include <cstdlib>
#include <exception>

#include "sweep/sweep_run.hpp"

namespace kvscope::cli {

std::string host_name() {
  char buf[256] = "";
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown host";
  return buf;
}

sweep_exec_outcome run_sweep_local(const run_description& base, const sweep_plan& plan,
                                   const std::vector<std::size_t>& todo, unsigned jobs, sweep_sink& sink,
                                   const std::atomic<bool>& interrupt, bool reuse,
                                   const std::map<std::size_t, std::string>& earlier) {
  sweep_exec_outcome outcome;
  const std::string where = host_name();
  try {
    run_sweep_rows(base, plan, todo, jobs, interrupt, [&] { sink.started(); },
                   [&](std::size_t index, std::string row, double took) { sink.done(index, std::move(row), took, where); },
                   reuse, earlier);
  } catch (const std::exception& e) {
    outcome.error = e.what();
  }
  outcome.interrupted = interrupt.load();
  return outcome;
}

int launcher_world_size() {
  // Open MPI's mpirun, the PMI of MPICH's hydra and of Slurm, then any srun job step.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    if (const char* v = std::getenv(name)) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  return 1;
}

std::optional<std::string> join_launch(std::optional<mpi_session>& mpi, const std::string& alternative) {
  const int world = launcher_world_size();
  if (world <= 1) return std::nullopt;
  const std::string tasks = "started as one of " + std::to_string(world);
  if (!built_with_mpi()) return tasks + " MPI ranks, but this kvscope-cli was built without MPI (-DKVSCOPE_MPI=ON): " + alternative;
  mpi.emplace();
  if (mpi->size() == world) return std::nullopt;
  return tasks + " tasks, but MPI sees " + std::to_string(mpi->size()) + " ranks: launch with mpirun (or srun --mpi=pmix), or " +
         alternative;
}

}  // namespace kvscope::cli
