#include "jobs/metrics_export.hpp"

#include <chrono>
#include <deque>
#include <exception>
#include <optional>

#include "engine/engine.hpp"
#include "io/metrics_csv.hpp"
#include "run/run_service.hpp"

namespace kvscope::ui {
namespace {

// The first of `replayed` (the re-run's newest steps) that differs from `kept`, as a reason;
// "" when they are the same steps, bit for bit.
std::string compareTails(const std::deque<step_metrics>& replayed, const std::vector<step_metrics>& kept) {
  if (replayed.size() != kept.size() || (!kept.empty() && replayed.back().step != kept.back().step)) {
    return "the re-run stopped at step " + (replayed.empty() ? std::string("0") : std::to_string(replayed.back().step)) +
           ", this run is at step " + (kept.empty() ? std::string("0") : std::to_string(kept.back().step));
  }
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (metrics_csv_row(replayed[i]) != metrics_csv_row(kept[i])) {
      return "step " + std::to_string(kept[i].step) + " came out differently";
    }
  }
  return {};
}

// Writes `rows` alone: the fallback when the whole run cannot be written.
expected<void, std::string> writeRows(const QString& path, const std::vector<step_metrics>& rows) {
  metrics_csv_writer csv;
  if (auto opened = csv.open(path.toStdString()); !opened) return opened;
  for (const step_metrics& m : rows) csv.write(m);
  return csv.finish();
}

}  // namespace

MetricsExport::MetricsExport(QObject* parent) : QObject(parent) {
  qRegisterMetaType<kvscope::ui::MetricsExport::Result>();
}

MetricsExport::~MetricsExport() = default;  // jobs_ cancels; a job stops between two engine steps

void MetricsExport::cancel() { jobs_.cancel(); }

void MetricsExport::start(run_description session, std::vector<step_metrics> kept, QString path) {
  const auto work = [this, session = std::move(session), kept = std::move(kept), path](const JobTracker::Job& job) {
    auto last = std::chrono::steady_clock::now();
    const auto report = [&](double fraction) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::milliseconds(100)) return;
      last = now;
      job.post([this, fraction] { Q_EMIT progress(fraction); });
    };
    return write(session, kept, path, job.cancelled(), report);
  };
  jobs_.start(work, [this, path](Result&& result) { Q_EMIT finished(path, result); });
}

MetricsExport::Result MetricsExport::write(const run_description& session, const std::vector<step_metrics>& kept,
                                           const QString& path, const std::atomic<bool>& cancelled,
                                           const std::function<void(double)>& progress) {
  Result r;
  std::optional<metrics_csv_writer> csv;
  std::string failure;
  const auto open = [&] {
    csv.emplace();
    auto opened = csv->open(path.toStdString());
    if (!opened) failure = opened.error();
    return static_cast<bool>(opened);
  };
  if (!open()) {
    r.message = QString::fromStdString(failure);
    return r;
  }
  std::deque<step_metrics> tail;  // the re-run's newest steps, to hold against `kept`
  std::uint64_t rows = 0, lastStep = 0;
  run_hooks hooks;
  hooks.cancel = &cancelled;
  hooks.on_step = [&](const engine& e) {
    const step_metrics& m = e.last_metrics();
    if (rows > 0 && m.step <= lastStep) {  // a reset in the command log: the run starts again
      csv.reset();
      if (!open()) return;
      tail.clear();
      rows = 0;
    }
    lastStep = m.step;
    if (!csv) return;
    csv->write(m);
    ++rows;
    tail.push_back(m);
    if (tail.size() > kept.size()) tail.pop_front();
    if (progress && (rows & 4095) == 0 && session.steps > 0) {
      progress(static_cast<double>(rows) / static_cast<double>(session.steps));
    }
  };
  try {
    if (run_to_end(session, hooks).cancelled) {
      r.message = QObject::tr("cancelled");
      return r;  // `csv` goes without a finish(): no file
    }
  } catch (const std::exception& e) {  // the trace is gone or changed, the engine cannot be built
    failure = e.what();
  }
  if (failure.empty() && csv) failure = compareTails(tail, kept);
  if (failure.empty()) {
    if (auto done = csv->finish(); !done) {
      r.message = QString::fromStdString(done.error());
      return r;
    }
    r.written = r.complete = true;
    r.rows = rows;
    r.message = QObject::tr("all %1 steps (the session run again headless; its last %2 steps are this "
                            "run's, bit for bit)").arg(rows).arg(kept.size());
    return r;
  }
  csv.reset();  // drop the re-run's file: it is not this run
  if (auto done = writeRows(path, kept); !done) {
    r.message = QString::fromStdString(done.error());
    return r;
  }
  r.written = true;
  r.rows = kept.size();
  const std::uint64_t first = kept.empty() ? 0 : kept.front().step;
  r.message = QObject::tr("only the last %1 of %2 steps (steps %3 to %4): steps 0 to %5 are not in it, "
                          "because running the session again to write them failed (%6)")
                  .arg(kept.size())
                  .arg(session.steps)
                  .arg(first)
                  .arg(kept.empty() ? 0 : kept.back().step)
                  .arg(first == 0 ? 0 : first - 1)
                  .arg(QString::fromStdString(failure));
  return r;
}

}  // namespace kvscope::ui
