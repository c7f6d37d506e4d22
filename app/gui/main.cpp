// kvscope: the desktop app. It runs the real engine through a runner: the built-in demo without
// arguments, or the load, model, budget and policy given as kvscope-cli takes them, or a saved
// session replayed. Without a display it runs the same thing headless and prints the engine's
// summary (as `kvscope-cli simulate` does); `--screenshot` renders offscreen. `--tour [FILE]`
// opens a guided tour instead (docs/tour.md), `--tour --export-pdf FILE` writes it as slides.
#include <QApplication>
#include <QCommandLineParser>
#include <QStyleFactory>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "arguments.hpp"
#include "plots/block_map_widget.hpp"
#include "window/comparison_controller.hpp"
#include "engine/engine.hpp"
#include "jobs/engine_bridge.hpp"
#include "io/policy_file.hpp"
#include "io/trace_checksum.hpp"
#include "kvscope_version.hpp"
#include "load/load_error.hpp"
#include "panels/jump_menu.hpp"
#include "window/main_window.hpp"
#include "window/moments_controller.hpp"
#include "memory/model_shape.hpp"
#include "run/option_table.hpp"
#include "common/run_setup.hpp"
#include "common/startup_error.hpp"
#include "tour/tour_text.hpp"
#include "window/tour_controller.hpp"
#include "tour/tour_slide.hpp"
#include "window/whatif_controller.hpp"
#include "util/byte_size.hpp"
#include "util/exit_status.hpp"

namespace {

using kvscope::exit_runtime_failure;
using kvscope::exit_bad_input;
using kvscope::app::declareOptions;
using kvscope::app::renameSessionArgument;
using kvscope::app::run_from_arguments;
using kvscope::app::usage_error;

bool display_available() {
  // Set but empty counts as unset, as Qt's platform plugins read it: an empty DISPLAY made Qt
  // abort with "could not connect to display" instead of the headless summary.
  const auto set = [](const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0';
  };
  if (set("QT_QPA_PLATFORM")) return true;  // offscreen, xcb, wayland… chosen explicitly
  return set("DISPLAY") || set("WAYLAND_DISPLAY");
}

bool has_argument(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], name, std::strlen(name)) == 0) return true;
  }
  return false;
}

// A startup error: printed on stderr and, where nobody would read stderr (started from a
// desktop launcher), also shown in a dialog (startup_error.hpp); returns `code` to exit with.
int fail(int code, const QString& message) {
  const QStringList args = QCoreApplication::arguments();
  const bool batch = std::any_of(args.begin(), args.end(), [](const QString& a) {
    return a.startsWith(QLatin1String("--screenshot")) || a.startsWith(QLatin1String("--export-pdf"));
  });
  return kvscope::ui::reportStartupError(message, code, kvscope::ui::currentStartupContext(batch));
}

int headless(const kvscope::run_description& s, const QCommandLineParser& p) {
  const std::string how = p.isSet(QStringLiteral("session"))
                              ? "kvscope-cli replay --session " + p.value(QStringLiteral("session")).toStdString()
                              : kvscope::ui::cliEquivalent(s);
  std::printf("kvscope %s: no display found (set DISPLAY, or QT_QPA_PLATFORM=offscreen for "
              "--screenshot); running %s headless, as `%s` does:\n",
              kvscope::version_string,
              p.isSet(QStringLiteral("session")) || p.isSet(QStringLiteral("load")) ? "the load" : "the built-in demo",
              how.c_str());
  std::fflush(stdout);
  try {
    std::fputs(kvscope::ui::headlessReport(s).c_str(), stdout);
  } catch (const kvscope::load_error& e) {
    std::fprintf(stderr, "kvscope: %s\n", e.what());
    return e.kind() == kvscope::load_error_kind::io_failure ? exit_runtime_failure : exit_bad_input;
  }
  return 0;
}

// --tour: the built-in tour or the script named after it, as a window, slides (--export-pdf) or,
// without a display, text. A bad script is refused with exit 2, naming the step and field.
int runTour(const QCommandLineParser& p, bool gui, double waitMs) {
  for (const char* other : {"load", "format", "skip-bad-rows", "model", "budget", "payload", "policy", "session",
                            "seed", "speed", "select-sequence", "jump-to"}) {
    if (p.isSet(QString::fromLatin1(other))) {
      return fail(exit_bad_input, QStringLiteral("--tour runs its own scenario; drop --%1").arg(QString::fromLatin1(other)));
    }
  }
  const QStringList files = p.positionalArguments();
  if (files.size() > 1) {
    return fail(exit_bad_input, QStringLiteral("--tour takes one script, got '%1' too").arg(files[1]));
  }
  auto script = files.isEmpty() ? kvscope::expected<kvscope::tour_script, std::string>(kvscope::builtin_tour())
                                : kvscope::read_tour_script(files.front().toStdString());
  auto run = script ? kvscope::run_tour(*script) : kvscope::expected<kvscope::tour_run, std::string>(
                                                       kvscope::unexpected{script.error()});
  if (!run) {
    return fail(exit_bad_input, QString::fromStdString(run.error()));
  }
  auto tour = std::make_shared<const kvscope::tour_run>(std::move(*run));
  bool ok = false;
  const int first = p.isSet(QStringLiteral("tour-step")) ? p.value(QStringLiteral("tour-step")).toInt(&ok) : 1;
  if (p.isSet(QStringLiteral("tour-step")) && (!ok || first < 1 || first > static_cast<int>(tour->frames.size()))) {
    return fail(exit_bad_input, QStringLiteral("--tour-step: expected a step from 1 to %1, got '%2'")
                                    .arg(tour->frames.size())
                                    .arg(p.value(QStringLiteral("tour-step"))));
  }
  if (p.isSet(QStringLiteral("export-pdf"))) {
    const QString path = p.value(QStringLiteral("export-pdf"));
    QString error;
    if (!kvscope::ui::exportTourPdf(*tour, path, &error)) return fail(exit_runtime_failure, error);
    std::printf("%s: %zu slides, one per step\n", qPrintable(path), tour->frames.size());
    return 0;
  }
  if (!gui) {
    std::printf("kvscope: no display found; the tour as text (as `kvscope-cli tour` prints it):\n\n%s",
                kvscope::format_tour_text(*tour).c_str());
    return 0;
  }
  kvscope::ui::MainWindow::Options options;
  auto t = kvscope::ui::openTourWindow(tour, options);
  t.controller->goTo(first - 1);
  if (p.isSet(QStringLiteral("dark"))) t.window->setDarkTheme(true);
  t.window->show();
  if (p.isSet(QStringLiteral("screenshot"))) {
    const QString path = p.value(QStringLiteral("screenshot"));
    QTimer::singleShot(static_cast<int>(std::min(waitMs, 3.6e6)), t.window.get(), [&t, path] {
      QString error;
      const bool saved = t.window->saveScreenshot(path, &error);
      if (!saved) std::fprintf(stderr, "kvscope: %s\n", qPrintable(error));
      QApplication::exit(saved ? 0 : exit_runtime_failure);
    });
  }
  return QApplication::exec();
}

// The options that only make sense with others, and the numbers; an exit code when they are
// wrong (the message already given), nothing when they are right.
std::optional<int> checkArguments(const QCommandLineParser& parser, double& waitMs, double& stepsPerSecond) {
  const bool tour = parser.isSet(QStringLiteral("tour"));
  for (const char* needsTour : {"export-pdf", "tour-step"}) {
    if (parser.isSet(QString::fromLatin1(needsTour)) && !tour) {
      return fail(exit_bad_input, QStringLiteral("--%1 needs --tour").arg(QString::fromLatin1(needsTour)));
    }
  }
  if (!parser.positionalArguments().isEmpty() && !tour) {
    return fail(exit_bad_input, QStringLiteral("unexpected argument '%1' (see --help)")
                                    .arg(parser.positionalArguments().front()));
  }
  for (const auto& [name, out] : {std::pair<QString, double*>{QStringLiteral("after-ms"), &waitMs},
                                  std::pair<QString, double*>{QStringLiteral("speed"), &stepsPerSecond}}) {
    if (!parser.isSet(name) && parser.value(name).isEmpty()) continue;
    bool ok = false;
    *out = parser.value(name).toDouble(&ok);
    if (!ok || *out < 0 || !std::isfinite(*out)) {
      return fail(exit_bad_input, QStringLiteral("--%1: '%2' is not a non-negative number").arg(name, parser.value(name)));
    }
  }
  return std::nullopt;
}

// With --screenshot: the PNG saved after `waitMs` (and, with --select-sequence, the sequence
// holding the most blocks selected just before), then the app quits.
void scheduleScreenshot(kvscope::ui::MainWindow& window, const QCommandLineParser& parser, double waitMs) {
  const QString path = parser.value(QStringLiteral("screenshot"));
  const int wait = static_cast<int>(std::min(waitMs, 3.6e6));
  if (parser.isSet(QStringLiteral("select-sequence"))) {
    QTimer::singleShot(std::max(0, wait - 400), &window, [&window] {
      const auto snap = window.bridge()->current();
      if (!snap || snap->pool->sequences.empty()) return;
      const auto& seqs = snap->pool->sequences;
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
      QApplication::exit(exit_runtime_failure);
      return;
    }
    QApplication::exit(0);
  });
}

// The main window on `run`, with what the window options ask for, until it closes.
int runWindow(const kvscope::run_description& run, const QCommandLineParser& parser, double stepsPerSecond,
              double waitMs) {
  std::unique_ptr<kvscope::runner> feed;
  try {
    feed = kvscope::ui::makeRunner(run, kvscope::ui::liveRunnerOptions(stepsPerSecond));
  } catch (const std::exception& e) {  // the engine could not be built (memory, a failed read)
    return fail(exit_runtime_failure, QString::fromStdString(e.what()));
  }
  const auto isSet = [&parser](const char* name) { return parser.isSet(QString::fromLatin1(name)); };
  kvscope::ui::MainWindow::Options windowOptions;
  windowOptions.persistSettings = !isSet("screenshot");  // screenshots use the default layout
  kvscope::ui::MainWindow window(std::move(feed), run, stepsPerSecond, windowOptions);
  if (isSet("dark")) window.setDarkTheme(true);
  if (isSet("by-sequence")) window.setBlockColorMode(kvscope::ui::BlockColorMode::bySequence);
  const QString raise = parser.value(QStringLiteral("raise"));
  if (isSet("raise") && !window.raiseDock(raise)) {
    return fail(exit_bad_input, QStringLiteral("--raise: no dock named '%1'").arg(raise));
  }
  window.show();
  if (isSet("what-if")) {
    const auto config = kvscope::read_policy_config(parser.value(QStringLiteral("what-if")).toStdString());
    if (!config) return fail(exit_bad_input, QString::fromStdString(config.error()));
    window.comparison()->whatIf()->propose(*config);
  }
  if (isSet("sweep")) {
    QString error;
    if (!window.openSweep(parser.value(QStringLiteral("sweep")), &error)) return fail(exit_bad_input, error);
  }
  if (isSet("speed")) window.moments()->setSpeedChosen();
  if (isSet("jump-to")) {
    const auto kind = kvscope::ui::momentKindNamed(parser.value(QStringLiteral("jump-to")));
    if (!kind) return fail(exit_bad_input, QStringLiteral("--jump-to: expected peak, busiest, level or preemption"));
    window.moments()->jumpWhenFound(*kind);
  }
  if (isSet("screenshot")) scheduleScreenshot(window, parser, waitMs);
  return QApplication::exec();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> renamed;
  std::vector<char*> args = renameSessionArgument(argc, argv, renamed);
  argv = args.data();
  const bool gui = display_available() || has_argument(argc, argv, "--screenshot") ||
                   has_argument(argc, argv, "--export-pdf");
  if (gui && !display_available()) qputenv("QT_QPA_PLATFORM", "offscreen");
  std::unique_ptr<QCoreApplication> app;
  if (gui) {
    app = std::make_unique<QApplication>(argc, argv);
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  } else {
    app = std::make_unique<QCoreApplication>(argc, argv);
  }
  QCoreApplication::setApplicationName(QStringLiteral("kvscope"));
  QCoreApplication::setOrganizationName(QStringLiteral("kvscope"));
  QCoreApplication::setApplicationVersion(QString::fromLatin1(kvscope::version_string));

  QCommandLineParser parser;
  declareOptions(parser);
  if (!parser.parse(QCoreApplication::arguments())) {
    return fail(exit_bad_input, parser.errorText());
  }
  if (parser.isSet(QStringLiteral("help"))) parser.showHelp(0);
  if (parser.isSet(QStringLiteral("version"))) parser.showVersion();
  const bool replaying = parser.isSet(QStringLiteral("session"));
  double waitMs = 3000, stepsPerSecond = replaying ? 0 : kvscope::ui::demoStepsPerSecond;
  if (const auto failed = checkArguments(parser, waitMs, stepsPerSecond)) return *failed;

  if (parser.isSet(QStringLiteral("tour"))) {
    return runTour(parser, gui, parser.isSet(QStringLiteral("after-ms")) ? waitMs : 500);
  }
  kvscope::run_description run;
  try {
    run = run_from_arguments(parser, gui);
  } catch (const usage_error& e) {
    return fail(e.code, QString::fromStdString(e.message));
  }
  if (!gui) return headless(run, parser);
  return runWindow(run, parser, stepsPerSecond, waitMs);
}
