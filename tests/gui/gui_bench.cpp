// Two GUI figures with the real engine, printed (no timed assertions):
// 1. Engine step rate with the window open vs headless: the same unpaced load (the demo's, made
//    endless) runs in a runner alone for S seconds (steps counted), then behind a main window
//    shown offscreen that polls and redraws at ~30 fps, alternately; each windowed run is
//    compared with the headless runs either side of it, and the median ratio is the figure.
//    CPU use is printed too: how many cores were busy, and the GUI thread's share.
// 2. Slider to redrawn bands: moves the q8 slider of the live window and times until the
//    pressure plot has replotted with the new lines, against the 33 ms refresh interval.
//   QT_QPA_PLATFORM=offscreen gui_bench [--seconds S] [--rounds N] [--iterations N]
//       [--load SPEC] [--model M] [--budget SIZE] [--payload data|accounting]
//       [--engine-threads N] [--snapshot-ms N] [--pool-view-share X]
//       [--only headless|window] [--hide dock,...]
//       [--profile-paint 1]
#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QLabel>
#include <QSlider>
#include <QTimer>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "run/runner.hpp"
#include "jobs/engine_bridge.hpp"
#include "window/main_window.hpp"
#include "plots/memory_plot.hpp"
#include "panels/policy_panel.hpp"
#include "plots/pressure_plot.hpp"
#include "common/qcustomplot_include.hpp"
#include "common/run_setup.hpp"
#include "util/byte_size.hpp"

namespace {

using namespace kvscope;

// CPU seconds of the calling thread so far.
double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// CPU seconds of the whole process (every thread) so far.
double processCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

int engineThreads = -1;  // --engine-threads N: instead of the app's choice (0 = every core)
int snapshotMs = -1;     // --snapshot-ms N: instead of the app's snapshot interval
double poolViewShare = -1;  // --pool-view-share X: instead of the runner's (1 = every snapshot)

// As the app runs the engine, but unpaced.
runner_options unpaced() {
  runner_options o = ui::liveRunnerOptions(0);
  if (engineThreads >= 0) o.max_threads = engineThreads;
  if (snapshotMs >= 0) o.snapshot_interval = std::chrono::milliseconds(snapshotMs);
  if (poolViewShare > 0) o.pool_view_share = poolViewShare;
  return o;
}

// Steps per second of the runner alone; the calling thread just sleeps.
double headlessRate(const run_description& s, double seconds) {
  auto r = ui::makeRunner(s, unpaced());
  const double cpu = processCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const auto snap = r->latest();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (snap->finished) std::fprintf(stderr, "gui_bench: the load ended early; use a longer one\n");
  const double rate = static_cast<double>(snap->step) / elapsed;
  std::printf("  headless:    %6.0f steps/s, %.2f cores busy\n", rate, (processCpuSeconds() - cpu) / elapsed);
  return rate;
}

// Wall time spent in paint events, by widget class (--profile-paint): where a redraw goes.
class PaintProfiler : public QObject {
 public:
  std::map<QString, std::pair<double, int>> ms;
  bool eventFilter(QObject* o, QEvent* e) override {
    if (e->type() != QEvent::Paint || !o->isWidgetType()) return false;
    QElapsedTimer t;
    t.start();
    depth_++;
    o->event(e);  // paint now, timed (QObject::event is public); then swallow the event
    depth_--;
    QString key = QString::fromLatin1(o->metaObject()->className()) + QLatin1Char(' ') + o->objectName();
    if (auto* l = qobject_cast<QLabel*>(o)) key += QLatin1Char(' ') + l->text().left(24);
    auto& slot = ms[key];
    slot.first += static_cast<double>(t.nsecsElapsed()) / 1e6;
    slot.second++;
    return true;
  }

 private:
  int depth_ = 0;
};

// Steps per second of the runner behind a main window shown offscreen, polling and redrawing
// at ~30 fps, for `seconds` of the app's own event loop. Prints what the GUI thread cost.
double windowedRate(QApplication& app, const run_description& s, double seconds, const QStringList& hide,
                    PaintProfiler* profiler) {
  ui::MainWindow::Options options;
  options.persistSettings = false;
  options.pollIntervalMs = 33;
  ui::MainWindow window(ui::makeRunner(s, unpaced()), s, 0, options);
  window.show();
  for (const QString& name : hide) {
    if (auto* d = window.findChild<QDockWidget*>(name)) d->close();
    if (name == QLatin1String("central")) window.centralWidget()->hide();
  }
  int frames = 0;
  QObject::connect(window.bridge(), &ui::EngineBridge::snapshotReady, [&frames] { ++frames; });
  if (profiler) app.installEventFilter(profiler);
  QElapsedTimer clock;
  clock.start();
  const auto start = window.bridge()->feed()->latest()->step;
  const double cpu = processCpuSeconds(), guiCpu = threadCpuSeconds();
  QEventLoop loop;  // the app's own loop: idle between redraws, as in real use
  QTimer::singleShot(static_cast<int>(seconds * 1000), &loop, &QEventLoop::quit);
  loop.exec();
  const double elapsed = static_cast<double>(clock.nsecsElapsed()) / 1e9;
  const double rate = static_cast<double>(window.bridge()->feed()->latest()->step - start) / elapsed;
  const double gui = threadCpuSeconds() - guiCpu;
  if (profiler) {
    app.removeEventFilter(profiler);
    for (const auto& [name, v] : profiler->ms) {
      if (v.first / seconds > 0.3) {
        std::printf("    paint %-40s %6.2f ms/s  %4d times\n", qPrintable(name), v.first / seconds, v.second);
      }
    }
  }
  std::printf("  window open: %6.0f steps/s, %.2f cores busy, redrawn %.1f times/s; GUI thread "
              "%.0f %% of a core, %.1f ms per redraw (replot: pressure %.2f ms, memory %.2f ms)\n",
              rate, (processCpuSeconds() - cpu) / elapsed, frames / elapsed, 100 * gui / elapsed,
              1000 * gui / std::max(1, frames), window.pressurePlot()->customPlot()->replotTime(true),
              window.memoryPlot()->customPlot()->replotTime(true));
  return rate;
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  int iterations = 40, rounds = 5;
  double seconds = 4;
  std::string only;  // "window" or "headless": one measurement (for profiling)
  QStringList hide;  // dock object names to close (to see what each costs)
  bool profilePaint = false;
  PaintProfiler profiler;
  // The demo's load and engine, kept going (a long duration) so it never runs out.
  run_description s = ui::demoSession();
  s.load_spec = "gen:rate=6,prompt=lognormal:700:0.5,output=uniform:500:0.6,duration=100000,seed=1";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i], value = argv[i + 1];
    if (arg == "--iterations") iterations = std::stoi(value);
    else if (arg == "--rounds") rounds = std::max(1, std::stoi(value));
    else if (arg == "--seconds") seconds = std::stod(value);
    else if (arg == "--load") s.load_spec = value;
    else if (arg == "--model") s.options.model = value;
    else if (arg == "--budget") s.options.budget_bytes = parse_byte_size(value).value_or(s.options.budget_bytes);
    else if (arg == "--payload") s.options.payload = value == "data" ? payload_mode::data : payload_mode::accounting;
    else if (arg == "--engine-threads") engineThreads = std::stoi(value);
    else if (arg == "--snapshot-ms") snapshotMs = std::stoi(value);
    else if (arg == "--pool-view-share") poolViewShare = std::stod(value);
    else if (arg == "--only") only = value;
    else if (arg == "--profile-paint") profilePaint = value == "1";
    else if (arg == "--hide") hide = QString::fromStdString(value).split(QLatin1Char(','));

  }
  const int threads = unpaced().max_threads;
  std::printf("load %s, model %s, budget %s, payload %s, engine threads %s, %u hardware threads\n",
              s.load_spec.c_str(), s.options.model.c_str(), ui::budgetText(s.options.budget_bytes).c_str(),
              s.options.payload == payload_mode::data ? "data" : "accounting",
              threads == 0 ? "all cores" : std::to_string(threads).c_str(), std::thread::hardware_concurrency());
  if (only == "headless") {
    headlessRate(s, seconds);
    return 0;
  }
  if (only == "window") {
    windowedRate(app, s, seconds, hide, profilePaint ? &profiler : nullptr);
    return 0;
  }

  // Headless and windowed runs interleaved (H W H W ... H), each window run compared with the
  // headless runs either side of it: other work on the machine drifts over a minute, and this
  // keeps it from reading as the window's cost. The figure is the median ratio.
  std::vector<double> headless{headlessRate(s, seconds)}, windowed, ratios;
  for (int r = 0; r < rounds; ++r) {
    windowed.push_back(windowedRate(app, s, seconds, hide, profilePaint && r == 0 ? &profiler : nullptr));
    headless.push_back(headlessRate(s, seconds));
    ratios.push_back(windowed.back() / ((headless[headless.size() - 2] + headless.back()) / 2));
  }
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  std::printf("engine steps/s with the window open vs headless, %d rounds of %.1f s:", rounds, seconds);
  for (double r : ratios) std::printf(" %.1f %%", 100 * r);
  std::printf(" -> median %.1f %% of headless\n", 100 * sorted[sorted.size() / 2]);

  // Slider to bands, with the engine running behind the window.
  ui::MainWindow::Options options;
  options.persistSettings = false;
  ui::MainWindow window(ui::makeRunner(s, unpaced()), s, 0, options);
  window.show();
  QCustomPlot* plot = window.pressurePlot()->customPlot();
  bool replotted = false;
  QObject::connect(plot, &QCustomPlot::afterReplot, [&] { replotted = true; });
  QSlider* slider = window.policyPanel()->slider(ui::PolicyPanel::q8Threshold);
  std::vector<double> ms;
  for (int i = 0; i < iterations; ++i) {
    const int value = 600 + (i % 2 ? 50 : 0) + i;
    replotted = false;
    QElapsedTimer t;
    t.start();
    slider->setValue(value);
    while (!replotted) QApplication::processEvents(QEventLoop::AllEvents);
    const double moved = window.pressurePlot()->q8LineValue();
    ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    if (std::abs(moved - value / 1000.0) > 1e-6) {
      std::fprintf(stderr, "gui_bench: the line is at %f, expected %f\n", moved, value / 1000.0);
      return 1;
    }
    QApplication::processEvents(QEventLoop::AllEvents, 20);  // let a few snapshots through
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2], p90 = ms[ms.size() * 9 / 10];
  std::printf("slider -> bands redrawn (engine running): median %.2f ms, p90 %.2f ms, max %.2f ms "
              "over %d moves; one refresh = 33 ms -> median is %.2f of a refresh\n",
              median, p90, ms.back(), iterations, median / 33.0);
  return 0;
}
