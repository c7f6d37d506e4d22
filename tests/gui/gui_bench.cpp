// Two GUI figures, printed (no timed assertions):
// 1. Engine step rate with the window open vs headless: the stand-in feed runs flat out for a
//    few seconds alone, then again behind a main window refreshing at ~30 fps.
// 2. Slider to redrawn bands: moves the q8 slider of the live window and times until the
//    pressure plot has replotted with the new lines, against the 33 ms refresh interval.
//   QT_QPA_PLATFORM=offscreen gui_bench [--iterations N] [--seconds S]
#include <QApplication>
#include <QElapsedTimer>
#include <QSlider>

#include <algorithm>
#include <cmath>
#include <thread>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "main_window.hpp"
#include "policy_panel.hpp"
#include "pressure_plot.hpp"
#include "qcustomplot_include.hpp"
#include "scripted_feed.hpp"

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  int iterations = 40;
  double seconds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--iterations")) iterations = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seconds")) seconds = std::stod(argv[i + 1]);
  }
  using namespace kvscope::ui;
  const auto wait = std::chrono::milliseconds(static_cast<long>(seconds * 1000));

  // Headless: the feed alone, flat out.
  double headless = 0;
  {
    ScriptedFeed feed({}, ScriptedFeed::Mode::threaded, 0);
    const auto start = feed.latest()->step;
    std::this_thread::sleep_for(wait);
    headless = static_cast<double>(feed.latest()->step - start) / seconds;
  }
  MainWindow::Options options;
  options.persistSettings = false;
  auto* feed = new ScriptedFeed({}, ScriptedFeed::Mode::threaded, 0);
  MainWindow window(std::unique_ptr<kvscope::engine_feed>(feed), options);
  window.show();
  QElapsedTimer clock;
  clock.start();
  const auto start = feed->latest()->step;
  while (clock.elapsed() < static_cast<qint64>(seconds * 1000)) QApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
  const double windowed = static_cast<double>(feed->latest()->step - start) * 1000.0 / static_cast<double>(clock.elapsed());
  std::printf("engine steps/s (stand-in feed, flat out): headless %.0f, window open %.0f -> %.0f %% of headless\n",
              headless, windowed, 100.0 * windowed / headless);

  QCustomPlot* plot = window.pressurePlot()->customPlot();
  bool replotted = false;
  QObject::connect(plot, &QCustomPlot::afterReplot, [&] { replotted = true; });
  QSlider* slider = window.policyPanel()->slider(PolicyPanel::q8Threshold);
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
      std::fprintf(stderr, "bands_bench: the line is at %f, expected %f\n", moved, value / 1000.0);
      return 1;
    }
  }
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2], p90 = ms[ms.size() * 9 / 10];
  std::printf("slider -> bands redrawn (engine running): median %.2f ms, p90 %.2f ms, max %.2f ms "
              "over %d moves; one refresh = 33 ms -> median is %.2f of a refresh\n",
              median, p90, ms.back(), iterations, median / 33.0);
  return 0;
}
