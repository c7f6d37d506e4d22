// kvscope: the desktop app. Without a display it prints a headless summary instead of failing
// (and `--screenshot` renders offscreen).
#include <QApplication>
#include <QCommandLineParser>
#include <QStyleFactory>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "block_map_widget.hpp"
#include "engine_bridge.hpp"
#include "io/policy_file.hpp"
#include "kvscope_version.hpp"
#include "main_window.hpp"
#include "scripted_engine.hpp"
#include "scripted_feed.hpp"

namespace {

bool display_available() {
  const char* platform = std::getenv("QT_QPA_PLATFORM");
  if (platform && *platform) return true;  // offscreen, xcb, wayland… chosen explicitly
  return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY");
}

bool has_argument(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0 || std::strncmp(argv[i], name, std::strlen(name)) == 0) return true;
  }
  return false;
}

// The first 80 simulated seconds of the built-in demo, as text.
int headless_summary() {
  kvscope::ui::ScriptedEngine engine;
  std::printf("kvscope %s: no display found (set DISPLAY, or QT_QPA_PLATFORM=offscreen); "
              "headless summary of the built-in demo (%s):\n",
              kvscope::version_string, kvscope::ui::ScriptedFeed::description());
  kvscope::precision last = engine.last_metrics().level;
  double peak = 0;
  while (engine.sim_time() < 80.0) {
    engine.step();
    const auto& m = engine.last_metrics();
    peak = std::max(peak, m.kv_cache_usage_perc);
    if (m.level != last) {
      std::printf("  t=%5.1f s  step %4llu  pressure %.3f  ewma %.3f  %s -> %s  (%u running)\n",
                  m.sim_time_s, static_cast<unsigned long long>(m.step), m.kv_cache_usage_perc,
                  m.pressure_ewma, std::string(kvscope::tag(last)).c_str(),
                  std::string(kvscope::tag(m.level)).c_str(), m.num_requests_running);
      last = m.level;
    }
  }
  const auto& m = engine.last_metrics();
  std::printf("  %llu steps, peak pressure %.3f, %llu level changes, %llu preemptions, "
              "%llu requests finished\n",
              static_cast<unsigned long long>(engine.step_index()), peak,
              static_cast<unsigned long long>(m.level_transitions_total),
              static_cast<unsigned long long>(m.num_preemptions_total),
              static_cast<unsigned long long>(m.requests_finished_total));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (!display_available()) {
    if (!has_argument(argc, argv, "--screenshot")) return headless_summary();
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("kvscope"));
  QApplication::setOrganizationName(QStringLiteral("kvscope"));
  QApplication::setApplicationVersion(QString::fromLatin1(kvscope::version_string));
  QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("See, explain and tune the memory of an LLM KV cache. Without arguments it "
                     "runs the built-in demo load."));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                      QStringLiteral("Save a PNG of the window to FILE and exit."),
                                      QStringLiteral("FILE"));
  const QCommandLineOption afterMs(QStringLiteral("after-ms"),
                                   QStringLiteral("With --screenshot: run this long first (default 3000)."),
                                   QStringLiteral("N"), QStringLiteral("3000"));
  const QCommandLineOption policy(QStringLiteral("policy"),
                                  QStringLiteral("Start with this policy config (JSON or TOML)."),
                                  QStringLiteral("FILE"));
  const QCommandLineOption seed(QStringLiteral("seed"), QStringLiteral("Seed of the demo load."),
                                QStringLiteral("N"), QStringLiteral("1"));
  const QCommandLineOption speed(QStringLiteral("speed"),
                                 QStringLiteral("Engine steps per second (0 = as fast as possible, default 20)."),
                                 QStringLiteral("N"), QStringLiteral("20"));
  const QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Use the dark theme."));
  const QCommandLineOption bySequence(QStringLiteral("by-sequence"),
                                      QStringLiteral("Colour the block map by sequence."));
  const QCommandLineOption select(QStringLiteral("select-sequence"),
                                  QStringLiteral("With --screenshot: select the sequence holding the most blocks just before the shot."));
  parser.addOptions({screenshot, afterMs, policy, seed, speed, dark, bySequence, select});
  if (!parser.parse(QApplication::arguments())) {
    std::fprintf(stderr, "kvscope: %s\n", qPrintable(parser.errorText()));
    return 2;
  }
  if (parser.isSet(QStringLiteral("help"))) parser.showHelp(0);
  if (parser.isSet(QStringLiteral("version"))) parser.showVersion();
  if (!parser.positionalArguments().isEmpty()) {
    std::fprintf(stderr, "kvscope: unexpected argument '%s' (see --help)\n",
                 qPrintable(parser.positionalArguments().front()));
    return 2;
  }
  const auto number = [&](const QCommandLineOption& o, double& out) {
    bool ok = false;
    out = parser.value(o).toDouble(&ok);
    if (!ok || out < 0) {
      std::fprintf(stderr, "kvscope: --%s: '%s' is not a non-negative number\n",
                   qPrintable(o.names().front()), qPrintable(parser.value(o)));
      return false;
    }
    return true;
  };
  double waitMs = 0, seedValue = 0, stepsPerSecond = 0;
  if (!number(afterMs, waitMs) || !number(seed, seedValue) || !number(speed, stepsPerSecond)) return 2;

  kvscope::ui::ScriptedEngineOptions engineOptions;
  engineOptions.seed = static_cast<std::uint64_t>(seedValue);
  if (parser.isSet(policy)) {
    const auto config = kvscope::read_policy_config(parser.value(policy).toStdString());
    if (!config) {
      std::fprintf(stderr, "kvscope: %s\n", config.error().c_str());
      return 2;
    }
    engineOptions.policy = *config;
  }

  kvscope::ui::MainWindow::Options windowOptions;
  windowOptions.persistSettings = !parser.isSet(screenshot);  // screenshots use the default layout
  windowOptions.loadDescription = QString::fromLatin1(kvscope::ui::ScriptedFeed::description());
  windowOptions.model = QStringLiteral("llama3-8b");
  kvscope::ui::MainWindow window(
      std::make_unique<kvscope::ui::ScriptedFeed>(engineOptions, kvscope::ui::ScriptedFeed::Mode::threaded,
                                                  stepsPerSecond),
      windowOptions);
  if (parser.isSet(dark)) window.setDarkTheme(true);
  if (parser.isSet(bySequence)) window.setBlockColorMode(kvscope::ui::BlockColorMode::bySequence);
  window.show();

  if (parser.isSet(screenshot)) {
    const QString path = parser.value(screenshot);
    const int wait = static_cast<int>(waitMs);
    if (parser.isSet(select)) {
      QTimer::singleShot(std::max(0, wait - 400), &window, [&window] {
        const auto snap = window.bridge()->current();
        if (!snap || snap->sequences.empty()) return;
        const auto& seqs = snap->sequences;
        const auto most = std::max_element(seqs.begin(), seqs.end(), [](const auto& a, const auto& b) {
          return a.block_table.size() < b.block_table.size();
        });
        window.blockMap()->selectSequence(most->id);
      });
    }
    QTimer::singleShot(wait, &window, [&window, path] {
      QString error;
      if (!window.saveScreenshot(path, &error)) {
        std::fprintf(stderr, "kvscope: %s\n", qPrintable(error));
        QApplication::exit(1);
        return;
      }
      QApplication::exit(0);
    });
  }
  return QApplication::exec();
}
