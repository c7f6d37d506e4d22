#pragma once
// A kvscope started from a desktop launcher has nowhere visible to print: its stderr goes to
// a log nobody reads, so bad arguments (a typo in the launcher's command, a trace that moved)
// looked like a program that never opened. Startup errors are printed on stderr as always
// and, where nobody would see them there, also shown in a dialog; the exit code is unchanged
// (util/exit_status.hpp: 2 bad arguments or input, 1 a runtime failure).
//
// The dialog is shown when all hold:
// - a QApplication runs on a real display (not the offscreen or minimal platform);
// - the run is interactive, not a batch job (--screenshot, --export-pdf), which must never
//   wait on a click;
// - stderr is not a terminal: started from a shell, the message is already in front of the
//   user, and a dialog on top would only be in the way.
#include <QString>

#include <memory>

class QMessageBox;

namespace kvscope::ui {

struct StartupContext {
  QString platform;           // QGuiApplication::platformName(), "" without a QApplication
  bool batch = false;         // --screenshot or --export-pdf
  bool stderrIsTerminal = false;
};

// This process's context (a QApplication must exist for the platform to be known).
StartupContext currentStartupContext(bool batch);

bool wantsStartupDialog(const StartupContext& context);

// The dialog for `message` (not shown): a critical box titled "kvscope cannot start".
std::unique_ptr<QMessageBox> makeStartupErrorBox(const QString& message);

// Prints "kvscope: <message>" on stderr, shows the dialog when `context` wants one (and waits
// until it is closed), and returns `code` for main() to exit with.
int reportStartupError(const QString& message, int code, const StartupContext& context);

}  // namespace kvscope::ui
