#pragma once
// <mpi.h> for the files that talk MPI (sweep_mpi.cpp, tune_mpi.cpp), when built with
// -DKVSCOPE_MPI=ON (KVSCOPE_HAVE_MPI). Open MPI's handle macros (MPI_COMM_WORLD, MPI_BYTE, ...)
// are C casts, expanded where they are used: the warning is off for the rest of the including file.
#ifdef KVSCOPE_HAVE_MPI
#pragma GCC diagnostic ignored "-Wold-style-cast"
#include <mpi.h>

#include <chrono>
#include <thread>

namespace kvscope::cli {

// Waits for the next message with `tag` (or MPI_ANY_TAG) from any rank and returns its status.
// Polls with a nap rather than blocking: a blocking receive spins in Open MPI, and rank 0 should
// leave its core to the ranks that compute.
inline MPI_Status wait_for_message(int tag) {
  for (;;) {
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &arrived, &status);
    if (arrived) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace kvscope::cli
#endif
