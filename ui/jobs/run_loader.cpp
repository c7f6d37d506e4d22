#include "jobs/run_loader.hpp"

#include <chrono>
#include <stdexcept>

#include "engine/engine.hpp"
#include "load/load_error.hpp"
#include "common/run_setup.hpp"

namespace kvscope::ui {
namespace {

struct cancelled_error {};  // thrown through for_each_request to stop reading

}  // namespace

RunLoader::RunLoader(QObject* parent) : QObject(parent) {
  connect(&jobs_, &JobTracker::busyChanged, this, &RunLoader::busyChanged);
}

RunLoader::~RunLoader() = default;  // jobs_ cancels and joins

void RunLoader::cancel() { jobs_.cancel(); }

quint64 RunLoader::start(run_description run, runner_options options, Done done) {
  auto work = [this, run = std::move(run), options](const JobTracker::Job& job) mutable {
    auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    const auto report = [&](double fraction, const QString& text) {
      const auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::milliseconds(50) && fraction < 1) return;
      last = now;
      job.post([this, id = job.id(), fraction, text] { Q_EMIT progress(id, fraction, text); });
    };
    return prepare(std::move(run), options, job.cancelled(), report);
  };
  // A superseded or cancelled job's result is dropped by the tracker (its runner stops there).
  return jobs_.start(std::move(work), [done = std::move(done)](Result&& result) {
    if (done) done(std::move(result));
  });
}

RunLoader::Result RunLoader::prepare(run_description run, const runner_options& options,
                                     const std::atomic<bool>& cancelled,
                                     const std::function<void(double, const QString&)>& report) {
  Result r;
  const QString what = QString::fromStdString(run.load_spec);
  try {
    if (auto resolved = resolve_run_setup(run); !resolved) {  // once: the runner's engines reuse it
      r.error = QString::fromStdString(resolved.error());
      r.run = std::move(run);
      return r;
    }
    if (!isGenerated(run)) {
      // Read every row once now, so a bad row deep in the file is refused before anything
      // changes instead of stopping the engine halfway (the runner reopens the file).
      report(0, QObject::tr("Reading %1…").arg(what));
      auto source = open_run_load(run);
      std::uint64_t requests = 0;
      for_each_request(*source, [&](const request&) {
        if ((++requests & 4095) == 0 && cancelled.load(std::memory_order_relaxed)) throw cancelled_error{};
      }, [&](const request_source& s) {
        report(s.progress(), QObject::tr("Reading %1: %2 requests").arg(what).arg(s.counters().requests));
      });
      const auto& c = source->counters();
      if (c.bad_rows > 0 || c.failed_requests > 0) {
        r.note = QObject::tr("%1 bad rows and %2 failed requests skipped")
                     .arg(c.bad_rows).arg(c.failed_requests);
        if (!c.bad_row_messages.empty()) {
          r.note += QObject::tr("; first: %1").arg(QString::fromStdString(c.bad_row_messages.front()));
        }
      }
      report(1, QObject::tr("%1: %2 requests, all rows valid").arg(what).arg(requests));
    }
    if (cancelled.load()) throw cancelled_error{};
    report(1, QObject::tr("Starting the engine…"));
    r.feed = makeRunner(run, options);
  } catch (const cancelled_error&) {
    r.error = QObject::tr("cancelled");
  } catch (const load_error& e) {
    r.error = QString::fromStdString(e.what());
  } catch (const std::exception& e) {  // std::invalid_argument from the engine, bad_alloc
    r.error = QString::fromStdString(e.what());
  }
  r.run = std::move(run);
  return r;
}

}  // namespace kvscope::ui
