#include "sweep_job.hpp"

#include <QMetaObject>

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

std::atomic<quint64> nextSweepId{0};

}  // namespace

SweepJob::SweepJob(QObject* parent) : QObject(parent) {}

SweepJob::~SweepJob() { jobs_.stopAll(); }

void SweepJob::cancel() {
  jobs_.cancelAll();
  running_ = 0;
}

quint64 SweepJob::start(const run_description& base, const sweep_plan& plan, unsigned jobs) {
  jobs_.cancelAll();
  const quint64 id = ++nextSweepId;
  running_ = id;
  jobs_.start(id, [this, id, base, plan, jobs](const std::atomic<bool>& cancelled) {
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
      QMetaObject::invokeMethod(this, [this, id, n, total, elapsed, eta] {
        if (id == running_) Q_EMIT progress(n, total, elapsed, eta);
      }, Qt::QueuedConnection);
    };
    QString error;
    try {
      run_sweep_rows(base, plan, todo, jobs, cancelled, {}, done);
    } catch (const std::exception& e) {  // the load cannot be read, a run refused its options
      error = QString::fromStdString(e.what());
    }
    const QByteArray text = QByteArray::fromStdString(file.text());
    QMetaObject::invokeMethod(this, [this, id, text, error, stopped = cancelled.load()] {
      jobs_.reap(id);  // it has just posted this, its last call
      if (id != running_ || stopped) return;
      running_ = 0;
      Q_EMIT finished(text, error);
    }, Qt::QueuedConnection);
  });
  return id;
}

}  // namespace kvscope::ui
