// kvscope: the desktop app. Without a display it prints a headless summary instead of failing.
#include <QApplication>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "demo_pressure.hpp"
#include "kvscope_version.hpp"
#include "main_window.hpp"
#include "policy/policy_controller.hpp"

namespace {

bool display_available() {
  const char* platform = std::getenv("QT_QPA_PLATFORM");
  if (platform && *platform) return true;  // offscreen, xcb, wayland… chosen explicitly
  return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY");
}

int headless_summary() {
  kvscope::policy_controller policy;
  std::printf("kvscope %s: no display found (set DISPLAY, or QT_QPA_PLATFORM=offscreen); "
              "headless summary of the built-in demo:\n", kvscope::version_string);
  kvscope::precision last = policy.level();
  constexpr int steps = 600;
  for (int step = 0; step < steps; ++step) {
    const double p = kvscope::ui::demo_pressure(step);
    const auto level = *policy.observe(p);
    if (level != last) {
      std::printf("  step %4d  pressure %.3f  ewma %.3f  %s -> %s\n", step, p, policy.ewma(),
                  std::string(kvscope::tag(last)).c_str(), std::string(kvscope::tag(level)).c_str());
      last = level;
    }
  }
  const auto s = policy.state();
  std::printf("  %llu steps, %llu upgrades, %llu downgrades, final level %s\n",
              static_cast<unsigned long long>(s.samples),
              static_cast<unsigned long long>(s.upgrades),
              static_cast<unsigned long long>(s.downgrades), std::string(kvscope::tag(s.level)).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (!display_available()) return headless_summary();
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("kvscope"));
  QApplication::setOrganizationName(QStringLiteral("kvscope"));
  QApplication::setApplicationVersion(QString::fromLatin1(kvscope::version_string));
  kvscope::ui::MainWindow window;
  window.show();
  return app.exec();
}
