#include "jobs/background_run.hpp"

#include <algorithm>
#include <exception>

#ifdef __linux__
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "engine/engine.hpp"
#include "io/session_file.hpp"
#include "run/run_service.hpp"

namespace kvscope::ui {
namespace {

// A ghost needs the shape of the run, not every step: 4,096 recent steps in full and 4,096
// overview points whatever the run's length.
constexpr std::size_t traceRecent = 4096;
constexpr std::size_t traceOverview = 4096;

// Runs the calling thread only on time the rest of the process leaves: on Linux, SCHED_IDLE for
// this thread alone (its thread id). A nice value of 10 still cost the live engine a third of
// its steps in gui_bench (its parallel steps wait for every worker); SCHED_IDLE a quarter, where
// nothing in the background cost a tenth. A tracker's pool threads run only its own jobs, so the
// pool of a Share::ahead runner stays so. Elsewhere a no-op.
void yieldToLiveEngine() {
#ifdef __linux__
  sched_param none{};
  sched_setscheduler(static_cast<pid_t>(syscall(SYS_gettid)), SCHED_IDLE, &none);
#endif
}

}  // namespace

slo_spec sloOf(const std::string& text) {
  if (text.empty()) return {};
  auto slo = parse_slo(text);
  return slo ? *slo : slo_spec{};
}

run_description wholeRun(run_description run) {
  run.commands.clear();
  run.steps = 0;
  return run;
}

bool sameRun(const run_description& a, const run_description& b) {
  return session_to_json(a) == session_to_json(b);
}

bool ranExactly(const OutcomePtr& outcome, const run_description& run) {
  return outcome && outcome->error.isEmpty() && sameRun(outcome->run, run);
}

BackgroundRun::BackgroundRun(QObject* parent, Share share) : QObject(parent), share_(share) {
  qRegisterMetaType<kvscope::ui::OutcomePtr>();
}

BackgroundRun::~BackgroundRun() = default;  // jobs_ cancels; a job stops between two engine steps

void BackgroundRun::cancel() { jobs_.cancel(); }

quint64 BackgroundRun::start(run_description run) {
  ++started_;
  struct Finished {
    quint64 job = 0;
    OutcomePtr outcome;
  };
  const auto work = [this, run = std::move(run)](const JobTracker::Job& job) {
    if (share_ == Share::ahead) yieldToLiveEngine();
    const auto report = [this, &job](const run_progress& p) {
      // The load is read ahead of the work (a queue drains after the last arrival): the share
      // done is that of the requests the whole load is expected to hold.
      if (p.load_fraction <= 0 || p.requests_seen == 0) return;
      const double expected = static_cast<double>(p.requests_seen) / p.load_fraction;
      const double done = std::min(1.0, static_cast<double>(p.requests_done) / expected);
      const double left = done > 0.01 ? p.wall_seconds * (1 - done) / done : -1;
      job.post([this, id = job.id(), fraction = done, left] { Q_EMIT progress(id, fraction, left); });
    };
    return Finished{job.id(), std::make_shared<RunOutcome>(runWhole(run, job.cancelled(), report))};
  };
  return jobs_.start(work, [this](Finished&& f) { Q_EMIT finished(f.job, f.outcome); });
}

RunOutcome BackgroundRun::runWhole(const run_description& run, const std::atomic<bool>& cancelled,
                                   const std::function<void(const run_progress&)>& progress) {
  RunOutcome out;
  out.run = run;
  auto trace = std::make_shared<metrics_history>(traceRecent, traceOverview);
  run_hooks hooks;
  hooks.cancel = &cancelled;
  moment_finder finder;
  bool stepped = false;
  std::uint64_t lastStep = 0;
  hooks.on_step = [&](const engine& e) {
    const step_metrics& m = e.last_metrics();
    // A reset in the command log starts the engine again at step 0: its moments are those
    // after the last one, as the live run's are.
    if (stepped && m.step <= lastStep) finder = moment_finder{};
    stepped = true;
    lastStep = m.step;
    trace->push(m);
    finder.observe(m);
  };
  hooks.on_progress = progress;
  auto latency = std::make_shared<latency_series_builder>(sloOf(run.options.slo));
  hooks.on_request = [&latency](const request_record& r) { latency->add(r); };
  // The payload only changes the measured quality, which a comparison does not show: the
  // headline metrics and the plotted step metrics are the same bit for bit in accounting mode
  // (tests/run/payload_invariance_test), which runs the demo's whole load 100x faster.
  run_description counted = run;
  counted.options.payload = payload_mode::accounting;
  try {
    run_result r = run_to_end(counted, hooks);
    if (r.cancelled) out.error = QObject::tr("cancelled");
    out.summary = std::move(r.summary);
  } catch (const std::exception& e) {  // the load cannot be read again, the options are refused
    out.error = QString::fromStdString(e.what());
  }
  out.trace = std::move(trace);
  out.latency = std::move(latency);
  out.moments = std::make_shared<const run_moments>(finder.moments());
  return out;
}

}  // namespace kvscope::ui
