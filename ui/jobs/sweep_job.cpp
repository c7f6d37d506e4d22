#include "jobs/sweep_job.hpp"

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <numeric>

#include "sweep/sweep_file.hpp"
#include "sweep/sweep_run.hpp"
#include "sweep/sweep_table.hpp"

namespace kvscope::ui {
namespace {

struct SweepText {
  QByteArray csv;
  QString error;  // "" when every run ran
};

}  // namespace

SweepJob::SweepJob(QObject* parent) : QObject(parent) {}

SweepJob::~SweepJob() = default;  // jobs_ cancels and joins

void SweepJob::cancel() { jobs_.cancel(); }

quint64 SweepJob::start(const run_description& base, const sweep_plan& plan, unsigned jobs) {
  const auto work = [this, base, plan, jobs](const JobTracker::Job& job) {
    // Only the text is wanted: the file is never written from here (the user saves it).
    sweep_file file("", sweep_header(plan.columns));
    std::mutex mutex;
    std::vector<std::size_t> todo(plan.configs.size());
    std::iota(todo.begin(), todo.end(), std::size_t{0});
    const int total = static_cast<int>(todo.size());
    const auto start = std::chrono::steady_clock::now();
    const auto done = [&](std::size_t index, std::string row, double) {
      const std::lock_guard lock(mutex);
      file.add(index, std::move(row));
      const int n = static_cast<int>(file.size());
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double eta = elapsed / n * (total - n);
      job.post([this, n, total, elapsed, eta] { Q_EMIT progress(n, total, elapsed, eta); });
    };
    SweepText out;
    try {
      run_sweep_rows(base, plan, todo, jobs, job.cancelled(), {}, done);
    } catch (const std::exception& e) {  // the load cannot be read, a run refused its options
      out.error = QString::fromStdString(e.what());
    }
    out.csv = QByteArray::fromStdString(file.text());
    return out;
  };
  return jobs_.start(work, [this](SweepText&& out) { Q_EMIT finished(out.csv, out.error); });
}

}  // namespace kvscope::ui
