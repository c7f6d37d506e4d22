#pragma once
// Where a sweep's finished rows go, from job threads or from MPI ranks: into the sweep file
// (sweep/sweep_file.hpp), written whole and atomically every `checkpoint_s` and at the end, with
// a progress line and ETA on stderr when it is a terminal, and with --verbose one line per
// config (its wall time and where it ran: the machine's facts stay out of the CSV).
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

#include "sweep/sweep_file.hpp"
#include "sweep/sweep_space.hpp"
#include "util/expected.hpp"

namespace kvscope::cli {

class sweep_sink {
 public:
  // `todo` configs are to run in this process (or its ranks); the file already holds some.
  sweep_sink(sweep_file& file, const sweep_plan& plan, std::size_t todo, bool verbose,
             double checkpoint_s = 10);
  ~sweep_sink();

  // A config's row. Thread-safe.
  void done(std::size_t index, std::string row, double wall_seconds, const std::string& where);
  // A config that started; for the progress line. Thread-safe.
  void started();
  // Writes the file as it stands and clears the progress line.
  expected<void, std::string> finish();

  std::size_t completed() const;
  double elapsed_s() const;

 private:
  void print_progress_locked(bool force);

  sweep_file& file_;
  const sweep_plan& plan_;
  std::size_t todo_, completed_ = 0, running_ = 0;
  bool verbose_, progress_;
  double checkpoint_s_;
  std::chrono::steady_clock::time_point start_, last_checkpoint_, last_progress_;
  std::string checkpoint_error_;
  mutable std::mutex mutex_;
};

}  // namespace kvscope::cli
