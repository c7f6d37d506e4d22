// The MPI half of sweep_exec.hpp: built with -DKVSCOPE_MPI=ON (KVSCOPE_HAVE_MPI), else stubs
// that are never reached (the sweep refuses to run under a launcher without MPI).
//
// Protocol (point to point, tags below): each worker sends a `report` to rank 0 — first an
// empty one, then one per config it ran, with the row (or the error) after the header — and
// rank 0 answers each with the next config index, or -1 to stop. So rank 0 hands out indices on
// request (dynamic balancing) and gathers rows; the sink orders them.
#include "sweep_exec.hpp"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <thread>

#include "sweep/sweep_run.hpp"

#include "mpi_include.hpp"

namespace kvscope::cli {

#ifdef KVSCOPE_HAVE_MPI
namespace {

constexpr int sweep_tag_report = 1, sweep_tag_assign = 2;

enum report_status : std::int32_t { asking = 0, row_done = 1, stopped = 2, failed = 3 };

struct report_header {
  std::int64_t index;
  std::int32_t status;
  std::int32_t unused;
  double wall_seconds;
};

void send_report(std::int64_t index, report_status status, double wall_seconds, const std::string& text) {
  std::string message(sizeof(report_header), '\0');
  const report_header header{index, status, 0, wall_seconds};
  std::memcpy(message.data(), &header, sizeof header);
  message += text;
  MPI_Send(message.data(), static_cast<int>(message.size()), MPI_BYTE, 0, sweep_tag_report, MPI_COMM_WORLD);
}

}  // namespace

bool built_with_mpi() { return true; }

mpi_session::mpi_session() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

mpi_session::~mpi_session() { MPI_Finalize(); }

sweep_exec_outcome coordinate_sweep(const mpi_session& mpi, const std::vector<std::size_t>& todo, sweep_sink& sink,
                                    const std::atomic<bool>& interrupt) {
  sweep_exec_outcome outcome;
  std::deque<std::size_t> queue(todo.begin(), todo.end());
  int working = mpi.size() - 1;
  std::string message;
  while (working > 0) {
    const MPI_Status status = wait_for_message(sweep_tag_report);
    int size = 0;
    MPI_Get_count(&status, MPI_BYTE, &size);
    message.resize(static_cast<std::size_t>(size));
    MPI_Recv(message.data(), size, MPI_BYTE, status.MPI_SOURCE, sweep_tag_report, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    report_header header{};
    std::memcpy(&header, message.data(), sizeof header);
    std::string text = message.substr(sizeof header);
    std::string where = "rank " + std::to_string(status.MPI_SOURCE);
    if (header.status == row_done) {
      // A row comes after the worker's host name and a newline.
      const auto newline = text.find('\n');
      where += " on " + text.substr(0, newline);
      text.erase(0, newline + 1);
    }
    if (header.status == row_done) {
      sink.done(static_cast<std::size_t>(header.index), std::move(text), header.wall_seconds, where);
    } else if (header.status == failed && outcome.error.empty()) {
      outcome.error = where + ": " + text;
    }
    const bool stop = interrupt.load() || !outcome.error.empty() || header.status == stopped;
    std::int64_t next = -1;
    if (!stop && !queue.empty()) {
      next = static_cast<std::int64_t>(queue.front());
      queue.pop_front();
      sink.started();
    }
    MPI_Send(&next, 1, MPI_INT64_T, status.MPI_SOURCE, sweep_tag_assign, MPI_COMM_WORLD);
    if (next < 0) --working;
    if (header.status == stopped) outcome.interrupted = true;
  }
  outcome.interrupted = outcome.interrupted || interrupt.load();
  return outcome;
}

std::string serve_sweep(const mpi_session& mpi, const run_description& base, const sweep_plan& plan,
                        const std::atomic<bool>& interrupt, bool reuse) {
  (void)mpi;
  std::string first_error;
  // Rank 0 hands out configs in order: a rank reuses the earlier runs it made itself.
  reuse_cache<std::string> cache(reuse);
  send_report(-1, asking, 0, {});
  for (;;) {
    std::int64_t index = -1;
    MPI_Recv(&index, 1, MPI_INT64_T, 0, sweep_tag_assign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (index < 0) return first_error;
    const auto start = std::chrono::steady_clock::now();
    try {
      auto row = sweep_config_row(base, plan, static_cast<std::size_t>(index), &interrupt, &cache);
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      if (row) {
        send_report(index, row_done, took.count(), host_name() + "\n" + *row);
      } else {
        send_report(index, stopped, took.count(), {});
      }
    } catch (const std::exception& e) {
      if (first_error.empty()) first_error = e.what();
      send_report(index, failed, 0, e.what());
    }
  }
}

#else

bool built_with_mpi() { return false; }
mpi_session::mpi_session() = default;
mpi_session::~mpi_session() = default;
sweep_exec_outcome coordinate_sweep(const mpi_session&, const std::vector<std::size_t>&, sweep_sink&,
                                    const std::atomic<bool>&) {
  return {false, "kvscope-cli was built without MPI"};
}
std::string serve_sweep(const mpi_session&, const run_description&, const sweep_plan&, const std::atomic<bool>&, bool) {
  return "kvscope-cli was built without MPI";
}

#endif

}  // namespace kvscope::cli
