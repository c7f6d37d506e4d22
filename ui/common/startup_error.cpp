#include "common/startup_error.hpp"

#include <QApplication>
#include <QMessageBox>

#include <cstdio>

#include <unistd.h>

namespace kvscope::ui {

StartupContext currentStartupContext(bool batch) {
  StartupContext c;
  if (qobject_cast<QApplication*>(QCoreApplication::instance())) c.platform = QGuiApplication::platformName();
  c.batch = batch;
  c.stderrIsTerminal = isatty(fileno(stderr)) != 0;
  return c;
}

bool wantsStartupDialog(const StartupContext& c) {
  if (c.platform.isEmpty() || c.platform == QLatin1String("offscreen") || c.platform == QLatin1String("minimal")) {
    return false;
  }
  return !c.batch && !c.stderrIsTerminal;
}

std::unique_ptr<QMessageBox> makeStartupErrorBox(const QString& message) {
  auto box = std::make_unique<QMessageBox>(QMessageBox::Critical, QObject::tr("kvscope cannot start"),
                                           QObject::tr("kvscope cannot start with these arguments."));
  box->setObjectName(QStringLiteral("startupErrorBox"));
  box->setInformativeText(message);
  box->setDetailedText(QObject::tr("Arguments: %1\n\nkvscope --help lists the options.")
                           .arg(QCoreApplication::arguments().mid(1).join(QLatin1Char(' '))));
  box->setStandardButtons(QMessageBox::Close);
  return box;
}

int reportStartupError(const QString& message, int code, const StartupContext& context) {
  std::fprintf(stderr, "kvscope: %s\n", qPrintable(message));
  std::fflush(stderr);
  if (wantsStartupDialog(context)) makeStartupErrorBox(message)->exec();
  return code;
}

}  // namespace kvscope::ui
